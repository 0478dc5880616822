import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { listCsv, putFile, voterCsv } from './e2e-data.ts';
import { cli, json, pollUntilDone, type ServerProcess, startServer, tempDir } from './process-harness.ts';

describe('the service as a separate process', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let env: Record<string, string>;
  let server: ServerProcess;
  let key: string;
  const smallList = () => join(dir.path, 'list-small.csv');

  before(async () => {
    dir = await tempDir();
    env = {
      DATA_DIR: join(dir.path, 'data'),
      RATE_LIMIT_POLL_SECONDS: '0',
      QUEUE_LEASE_SECONDS: '2',
      QUEUE_POLL_MS: '50',
    };
    await writeFile(join(dir.path, 'voters.csv'), voterCsv(200_000));
    const report = JSON.parse(cli(['voters', 'import', join(dir.path, 'voters.csv'), '--json'], env));
    assert.equal(report.imported, 200_000);
    const created = JSON.parse(cli(['keys', 'create', '--name', 'e2e client', '--json'], env));
    key = created.key;
    cli(['profiles', 'set', created.id, '--append', 'party,first_name:given_name'], env);
    await writeFile(smallList(), listCsv(2_000, 200_000));
    server = await startServer(env);
  });
  after(async () => {
    await server?.stop();
    await dir?.remove();
  });

  for (const format of ['csv', 'gzip', 'zip'] as const) {
    test(`register → PUT → poll → download over HTTP (${format})`, async () => {
      const filename = `e2e_${format}`;
      const registration = await json(
        `${server.base}/service/smartmatch?filename=${filename}&format=${format}`,
        key,
      );
      assert.equal(registration.status, 200);
      assert.equal(registration.body['error'], null);
      assert.equal(await putFile(String(registration.body['url']), smallList()), 200);
      const done = await pollUntilDone(server.base, key, filename);
      assert.equal(done['error'], null);
      const response = await fetch(String(done['url']));
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-encoding'), null);
      const bytes = Buffer.from(await response.arrayBuffer());
      if (format === 'zip') {
        assert.equal(bytes.subarray(0, 4).toString('hex'), '504b0304');
        return;
      }
      const csv = (format === 'gzip' ? gunzipSync(bytes) : bytes).toString('utf8');
      const lines = csv.trimEnd().split('\n');
      assert.equal(
        lines[0],
        'matchback_id,voterbase_id,voter_id,state,exact_track,ts__input_row,ts__row,tsmart_match_code,vb.voterbase_id,vb.party,vb.given_name,sm.input_row,sm.rank,sm.match,sm.score,sm.method,sm.explain',
      );
      assert.equal(lines.length, 2_001);
      const matched = lines.slice(1).filter((l) => l.split(',')[7] === 'Y').length;
      assert.equal(matched, 1_800);
    });
  }

  test('a worker killed with SIGKILL mid-job resumes on restart and produces the same result', async () => {
    const big = join(dir.path, 'list-big.csv');
    await writeFile(big, listCsv(1_500_000, 200_000));
    // The reference: the same pipeline run locally by the CLI.
    const reference = join(dir.path, 'reference.csv');
    cli(['match', big, '--out', reference, '--append', 'party,first_name:given_name'], env);

    const registration = await json(`${server.base}/service/smartmatch?filename=killed`, key);
    assert.equal(await putFile(String(registration.body['url']), big), 200);
    const deadline = Date.now() + 30_000;
    for (;;) {
      const { body } = await json(`${server.base}/service/smartmatch/poll?filename=killed`, key);
      if (body['status'] === 'processing') break;
      assert.notEqual(
        body['status'],
        'complete',
        'the job finished before it could be killed; make the list larger',
      );
      assert.ok(Date.now() < deadline);
      await new Promise((r) => setTimeout(r, 20));
    }
    await new Promise((r) => setTimeout(r, 300));
    await server.kill();
    // Proof that the kill landed mid-job: on disk the job is still processing, with no result.
    const jobId = /files\/(job_[^/]+)\//.exec(String(registration.body['url']))![1]!;
    const killed = JSON.parse(cli(['jobs', 'show', jobId], env));
    assert.equal(killed.state, 'processing');
    assert.equal(killed.resultBlob, null);

    server = await startServer(env);
    const done = await pollUntilDone(server.base, key, 'killed', 120_000);
    assert.equal(done['error'], null);
    const result = Buffer.from(await (await fetch(String(done['url']))).arrayBuffer());
    const { readFile } = await import('node:fs/promises');
    const expected = await readFile(reference);
    assert.equal(result.length, expected.length);
    assert.ok(result.equals(expected), 'the resumed job wrote exactly what a clean run writes');
  });

  test('the CLI lists keys without revealing them, revokes them, and shows jobs', async () => {
    const created = JSON.parse(cli(['keys', 'create', '--name', 'short lived', '--json'], env));
    const listed = JSON.parse(cli(['keys', 'list', '--json'], env)) as { id: string; prefix: string }[];
    const entry = listed.find((k) => k.id === created.id)!;
    assert.equal(entry.prefix, `${created.key.slice(0, 9)}…`);
    assert.ok(!JSON.stringify(listed).includes(created.key), 'keys are never shown again');
    assert.equal((await json(`${server.base}/service/smartmatch?filename=x`, created.key)).status, 200);
    cli(['keys', 'revoke', created.id], env);
    const refused = await json(`${server.base}/service/smartmatch?filename=x`, created.key);
    assert.equal(refused.status, 401);
    assert.match(String(refused.body['error']), /^Authorization Error: this API key was revoked/);
    const jobs = JSON.parse(cli(['jobs', 'list', '--json', '--state', 'complete'], env)) as {
      filename: string;
    }[];
    assert.ok(jobs.some((j) => j.filename === 'e2e_csv'));
  });
});
