/**
 * A voter file published while a list job runs (issue 38, item 4, at a test's size): the running
 * job finishes on the version it started with, a job registered afterwards takes the new one, and
 * polls, registrations and uploads keep being answered. The real embedded service; the new
 * version differs from the first in every voter's party, so each result tells its version.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { formatCsvRow } from '../../src/domain/csv/csv-writer.ts';
import { generateVoterRows, VOTER_COLUMNS } from '../../src/lab/synthetic/voters/voter-generator.ts';
import {
  getJson,
  register,
  startTestService,
  type TestService,
  upload,
  waitForResult,
} from '../support/test-service.ts';

const VOTERS = 20_000;
/** Long enough that the job is still matching when the new version is published (seconds). */
const LIST_ROWS = 200_000;

describe('a voter file published while a list job runs', () => {
  let dir: string;
  let service: TestService;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'listmatch-publish-'));
    // One matching thread: the list takes seconds on any machine.
    service = await startTestService({ RATE_LIMIT_POLL_SECONDS: '0', MATCH_THREADS: '1' }, { voters: false });
  });
  after(async () => {
    await service.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test('the running job keeps the version it started on; the next job takes the new one', async () => {
    const rows = [...generateVoterRows({ rows: VOTERS, seed: 41 })];
    const party = VOTER_COLUMNS.indexOf('party');
    const header = `${VOTER_COLUMNS.join(',')}\n`;
    const first = join(dir, 'first.csv');
    const second = join(dir, 'second.csv');
    await writeFile(first, header + rows.map((row) => `${formatCsvRow(row)}\n`).join(''));
    await writeFile(
      second,
      header +
        rows.map((row) => `${formatCsvRow(row.map((v, i) => (i === party ? 'NEWPARTY' : v)))}\n`).join(''),
    );
    const voters = service.running.services.voters;
    await voters.importFile(first, { replace: true });
    const firstVersion = (await voters.current())!.version;

    const at = (name: string) => VOTER_COLUMNS.indexOf(name as (typeof VOTER_COLUMNS)[number]);
    const listLines = ['matchback_id,first_name,last_name,zip,dob'];
    for (let i = 0; i < LIST_ROWS; i++) {
      const row = rows[i % rows.length]!;
      listLines.push(
        formatCsvRow([
          String(i),
          ...['first_name', 'last_name', 'zip', 'dob'].map((name) => row[at(name)] ?? ''),
        ]),
      );
    }
    const list = `${listLines.join('\n')}\n`;
    const { key } = await service.createKey();

    assert.equal(
      (await upload(await register(service, key, 'filename=before&format=csv'), list)).status,
      200,
    );
    // Published once the job is matching: some rows through, far from all of them.
    let matchedAtPublish = 0;
    for (const deadline = Date.now() + 120_000; ; ) {
      const { body } = await getJson(`${service.base}/service/smartmatch/poll?filename=before`, key);
      const progress = body['progress'] as { rows_matched?: number } | null | undefined;
      matchedAtPublish = progress?.rows_matched ?? 0;
      if (matchedAtPublish > 0) break;
      assert.ok(Date.now() < deadline, 'the job started matching');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await voters.importFile(second, { replace: true });
    const secondVersion = (await voters.current())!.version;
    assert.notEqual(secondVersion, firstVersion);
    // Meanwhile the service answers: a poll (the job still matching), a registration and its upload.
    const { status, body } = await getJson(`${service.base}/service/smartmatch/poll?filename=before`, key);
    assert.equal(status, 200);
    assert.ok(
      body['url'] === '' || body['url'] === null,
      `still matching after the publish: ${body['status']}`,
    );
    assert.equal((await upload(await register(service, key, 'filename=after&format=csv'), list)).status, 200);

    const before = await waitForResult(service, key, 'before', 300_000);
    assert.equal(before.error, null);
    const after = await waitForResult(service, key, 'after', 300_000);
    assert.equal(after.error, null);

    const parties = async (url: string) => {
      const [head, ...lines] = (await (await fetch(url)).text()).trimEnd().split('\n');
      const column = head!.split(',').indexOf('vb.party');
      assert.ok(column >= 0, head);
      return new Set(lines.map((line) => line.split(',')[column]).filter((value) => value !== ''));
    };
    const beforeParties = await parties(before.url);
    const afterParties = await parties(after.url);
    assert.ok(beforeParties.size > 1 && !beforeParties.has('NEWPARTY'), [...beforeParties].join(' '));
    assert.deepEqual([...afterParties], ['NEWPARTY']);
  });
});
