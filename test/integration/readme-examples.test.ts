import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ListmatchClient } from 'listmatch/client';
import { FIXTURES, startTestService, type TestService } from '../support/test-service.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin/listmatch.js');

/**
 * The README's shell examples that are not run here, each with the reason. Every other `sh` block
 * runs below against a started service: a new example either runs or is named here.
 */
const NOT_RUN: [starts: string, reason: string][] = [
  [
    'npm ci && npm run demo',
    'installs and starts the demo server; the demo is the same service this test starts',
  ],
  ['npm test', 'the test suite itself'],
  ['npm start', 'starts a server in the foreground; startTestService starts the same service'],
];

/** The README's `sh` blocks, in order. */
async function readmeBlocks(): Promise<string[]> {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  return [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

const LIST = [
  'matchback_id,first_name,last_name,voter_id,state,notes',
  '1,Peggy,Smith,123456,NC,first',
  '2,Jose,Munoz,777,NC,"has, comma"',
  '3,Nobody,Here,999999,NC,none',
].join('\n');

describe("the README's examples, run against a started service", () => {
  let t: TestService;
  let dir: string;
  let key: string;
  let keyId: string;
  let revocable: string;

  before(async () => {
    t = await startTestService({
      RATE_LIMIT_POLL_SECONDS: '0',
      POLITICALDSP_URL: 'http://127.0.0.1:9',
      POLITICALDSP_TOKEN: 'test-token',
    });
    ({ key, id: keyId } = await t.createKey());
    revocable = (await t.createKey({ name: 'to revoke' })).id;
    dir = await mkdtemp(join(tmpdir(), 'listmatch-readme-'));
    for (const name of ['sample-list.csv', 'members.csv', 'list.csv']) await writeFile(join(dir, name), LIST);
    await writeFile(join(dir, 'voter-ids.csv'), 'voterbase_id\nNC-000000001\n');
    await writeFile(join(dir, 'key.txt'), `${key}\n`);
  });
  after(async () => {
    await t.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** A block as this test runs it: the service's address, its files and ids; `[--optional]` parts left out. */
  function runnable(block: string, jobId: string): string {
    return (
      block
        .split('\n')
        .map((line) =>
          line
            // The test keys have a webhook secret already: showing it again needs --rotate.
            .replace('[--rotate [--immediately]]', '--rotate')
            .replace(/\s*\[--(?:[^[\]]|\[[^\]]*\])*\]/g, '')
            .replaceAll('key_…', line.includes('revoke') ? revocable : keyId)
            .replaceAll('job_…', jobId),
        )
        .join('\n')
        .replaceAll('http://localhost:8080', t.base)
        .replaceAll('data/demo/sample-list.csv', join(dir, 'sample-list.csv'))
        .replaceAll('~/.listmatch-key', join(dir, 'key.txt'))
        .replaceAll('voters import voters.csv', `voters import ${join(FIXTURES, 'voters-small.csv')}`)
        .replaceAll("export LISTMATCH_KEY='lm_…'", `export LISTMATCH_KEY='${key}'`)
        .replaceAll('sleep 30', 'sleep 0.2')
        // The service under test allows polls at any pace: no 30 s waits.
        .replaceAll('listmatch submit ', 'listmatch submit --poll-interval 0.2 ')
    );
  }

  function bash(script: string): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      execFile(
        'bash',
        // The options inside the script: bash may read a system bashrc first (stdin is no terminal).
        ['-c', `set -euo pipefail\nlistmatch() { node ${JSON.stringify(BIN)} "$@"; }\n${script}`],
        {
          cwd: dir,
          env: {
            PATH: process.env['PATH'] ?? '',
            DATA_DIR: t.dataDir,
            LOG_LEVEL: 'silent',
            LISTMATCH_KEY: key,
          },
        },
        (error, stdout, stderr) =>
          resolve({
            code: error === null ? 0 : Number((error as { code?: number }).code ?? 1),
            stdout,
            stderr,
          }),
      );
    });
  }

  test('every sh block runs (or is named in NOT_RUN with its reason)', async () => {
    const blocks = await readmeBlocks();
    assert.ok(blocks.length >= 6);
    let ran = 0;
    for (const block of blocks) {
      if (NOT_RUN.some(([starts]) => block.trimStart().startsWith(starts))) continue;
      const client = new ListmatchClient({ server: t.base, apiKey: key });
      const jobs = await t.running.services.jobStore.listJobs({ limit: 1 });
      const script = runnable(block, jobs[0]?.id ?? 'job_none');
      const { code, stdout, stderr } = await bash(script);
      assert.equal(code, 0, `README block failed:\n${script}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`);
      if (block.includes('curl')) {
        // The walk-through: the upload's 200, then the result's header and rows.
        const lines = stdout.trimEnd().split('\n');
        assert.equal(lines[0], '200');
        assert.match(lines[1]!, /^matchback_id,first_name,last_name,voter_id,state,notes,/);
        assert.match(lines[2]!, /^1,Peggy,Smith,123456,NC,first,.*NC-000000001/);
        assert.equal((await client.poll('demo_list')).status, 'complete');
      }
      ran++;
    }
    assert.equal(ran, blocks.length - NOT_RUN.length, 'each NOT_RUN entry names a block of the README');
    // What the examples left behind: the joined lists of the submit examples.
    const joined = (await readFile(join(dir, 'members-joined.csv'), 'utf8')).split('\n');
    assert.match(joined[0]!, /^matchback_id,first_name,last_name,voter_id,state,notes,/);
    assert.equal((await readFile(join(dir, 'demo-joined.csv'), 'utf8')).split('\n').length, 4 + 1);
  });
});
