/**
 * A voter file too big for one worker, on loopback: imported once as shards by state
 * (VOTER_SHARD_MAX_ROWS), published to the S3 bucket, and matched by two worker processes that
 * each hold only part of it (VOTER_CACHE_MB), against one PostgreSQL and one Swift bucket.
 *
 * - every job is split into per-shard chunks, each queue's chunks run on whichever worker holds
 *   that shard (or fetches it), and the assembled result is byte-identical to the embedded
 *   single-process result on the same file (`listmatch match` on its own DATA_DIR);
 * - a worker killed with SIGKILL mid-chunk: the other one finishes the job, byte-identical.
 */
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, type TestContext, test } from 'node:test';
import pg from 'pg';
import { createTestDatabase, skipWithoutPostgres, type TestDatabase } from '../support/postgres.ts';
import { createTestBucket, skipWithoutS3, type TestBucket } from '../support/s3-server.ts';
import { scaledOutEnv } from '../support/scaled-out-env.ts';
import { putFile } from './e2e-data.ts';
import { cli, json, pollUntilDone, type ServerProcess, startServer, tempDir } from './process-harness.ts';

const STATES = 'NC,OH,GA,PA';
const VOTERS = 40_000;
/** ~10,000 voters per state: each state becomes two ZIP3-range shards. */
const SHARD_MAX_ROWS = '7000';
const LISTS = 4;

interface Client {
  id: string;
  key: string;
}

describe('2 workers matching a sharded voter file from the bucket', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let database: TestDatabase;
  let bucket: TestBucket;
  let shared: Record<string, string>;
  let api: ServerProcess;
  const workers: ServerProcess[] = [];
  const clients: Client[] = [];
  const list = (n: number) => join(dir.path, `list-${n}.csv`);
  const reference = (n: number) => join(dir.path, `reference-${n}.csv`);
  let db: pg.Client;
  let shardCount = 0;

  let setUp: Promise<void> | null = null;
  async function skipOrSetUp(t: TestContext): Promise<boolean> {
    if ((await skipWithoutPostgres(t)) || (await skipWithoutS3(t))) return true;
    setUp ??= startCluster();
    await setUp;
    return false;
  }

  async function startCluster(): Promise<void> {
    dir = await tempDir();
    database = await createTestDatabase();
    bucket = await createTestBucket();
    const voters = join(dir.path, 'voters.csv');
    cli(
      ['generate', 'voters', '--rows', String(VOTERS), '--states', STATES, '--seed', '3', '--out', voters],
      {},
    );
    for (let n = 0; n < LISTS; n++) {
      const rows = n === LISTS - 1 ? 12_000 : 1_500 + n;
      cli(
        [
          'generate',
          'list',
          '--from',
          voters,
          '--rows',
          String(rows),
          '--match-rate',
          '0.8',
          '--pattern',
          'mixed',
          '--seed',
          String(10 + n),
          '--out',
          list(n),
          '--truth',
          join(dir.path, `truth-${n}.csv`),
        ],
        {},
      );
    }
    shared = {
      ...scaledOutEnv(database, bucket, 'sharded-e2e-secret-0123456789abcdef01'),
      VOTER_SHARD_MAX_ROWS: SHARD_MAX_ROWS,
      RATE_LIMIT_POLL_SECONDS: '0',
      QUEUE_LEASE_SECONDS: '2',
      QUEUE_POLL_MS: '100',
      UPLOAD_POLL_MS: '100',
      MATCH_THREADS: '1',
      LOG_LEVEL: 'warn',
    };
    // The embedded single-process reference: the same sharded file, no PostgreSQL, no S3.
    const embedded = {
      DATA_DIR: join(dir.path, 'embedded'),
      VOTER_SHARD_MAX_ROWS: SHARD_MAX_ROWS,
      LOG_LEVEL: 'warn',
    };
    cli(['voters', 'import', voters, '--replace', '--json'], embedded);
    for (let n = 0; n < LISTS; n++) {
      cli(['match', list(n), '--out', reference(n), '--append', 'party', '--max-matches', '2'], embedded);
    }
    const imported = JSON.parse(
      cli(['voters', 'import', voters, '--replace', '--json'], {
        ...shared,
        DATA_DIR: join(dir.path, 'importer'),
      }),
    ) as { version: string };
    const meta = JSON.parse(
      await readFile(join(dir.path, 'importer', 'voters', imported.version, 'meta.json'), 'utf8'),
    ) as { shards: { shards: { memoryBytes: number }[] } };
    shardCount = meta.shards.shards.length;
    // Room for about half the shards in each worker.
    const biggest = Math.max(...meta.shards.shards.map((shard) => shard.memoryBytes));
    const cacheMb = Math.ceil((biggest * Math.ceil(shardCount / 2)) / (1024 * 1024));
    for (let n = 0; n < 2; n++) {
      const created = JSON.parse(
        cli(['keys', 'create', '--name', `client ${n}`, '--json'], { ...shared, DATA_DIR: dir.path }),
      ) as Client;
      cli(['profiles', 'set', created.id, '--append', 'party'], { ...shared, DATA_DIR: dir.path });
      clients.push(created);
    }
    api = await startServer({ ...shared, ROLES: 'api', DATA_DIR: join(dir.path, 'api') });
    for (const name of ['worker-1', 'worker-2']) {
      workers.push(
        await startServer({
          ...shared,
          ROLES: 'worker',
          VOTER_CACHE_MB: String(cacheMb),
          DATA_DIR: join(dir.path, name),
        }),
      );
    }
    db = new pg.Client({ connectionString: database.url });
    await db.connect();
  }

  after(async () => {
    if (setUp === null) return;
    await setUp.catch(() => {});
    await db?.end().catch(() => {});
    await Promise.allSettled([api, ...workers].filter(Boolean).map((process) => process.stop()));
    await database?.drop();
    await bucket?.drop();
    await dir?.remove();
  });

  async function submit(client: Client, filename: string, path: string): Promise<void> {
    const registration = await json(
      `${api.base}/service/smartmatch?filename=${filename}&max_matches=2&format=csv`,
      client.key,
    );
    assert.equal(registration.status, 200, JSON.stringify(registration.body));
    assert.equal(await putFile(String(registration.body['url']), path), 200);
  }

  async function download(client: Client, filename: string): Promise<Buffer> {
    const done = await pollUntilDone(api.base, client.key, filename, 300_000);
    assert.equal(done['error'], null, `${filename}: ${String(done['error'])}`);
    const response = await fetch(String(done['url']));
    assert.equal(response.status, 200);
    return Buffer.from(await response.arrayBuffer());
  }

  const metric = async (worker: ServerProcess, pattern: RegExp): Promise<number> => {
    const text = await (await fetch(`${worker.base}/metrics`)).text();
    let sum = 0;
    for (const match of text.matchAll(pattern)) sum += Number(match[1]);
    return sum;
  };

  test('jobs from 2 keys: chunks on both workers, each holding part of the file; results byte-identical', async (t) => {
    if (await skipOrSetUp(t)) return;
    await Promise.all(
      Array.from({ length: LISTS - 1 }, (_, n) => submit(clients[n % 2]!, `list_${n}`, list(n))),
    );
    for (let n = 0; n < LISTS - 1; n++) {
      const bytes = await download(clients[n % 2]!, `list_${n}`);
      const expected = await readFile(reference(n));
      assert.ok(
        bytes.equals(expected),
        `list_${n}: the scaled-out result equals the embedded one byte for byte`,
      );
    }
    const chunksRun = await Promise.all(
      workers.map((w) =>
        metric(
          w,
          /listmatch_stage_duration_seconds_count\{queue="match-chunk\.[^"]+",outcome="done"\} (\d+)/g,
        ),
      ),
    );
    const loads = await Promise.all(
      workers.map((w) => metric(w, /listmatch_voter_snapshot_loads_total (\d+)/g)),
    );
    assert.ok(
      chunksRun.every((n) => n > 0),
      `both workers matched chunks (${chunksRun.join(', ')})`,
    );
    const chunks = chunksRun[0]! + chunksRun[1]!;
    assert.ok(
      chunks >= (LISTS - 1) * shardCount * 0.9,
      `${chunks} chunks for ${LISTS - 1} lists over ${shardCount} shards`,
    );
    t.diagnostic(`chunks per worker ${chunksRun.join(', ')}; shard loads per worker ${loads.join(', ')}`);
    // A worker reuses the shards it holds: far fewer loads than chunks.
    assert.ok(loads[0]! + loads[1]! < chunks, `${loads.join(' + ')} shard loads for ${chunks} chunks`);
    // Each worker fetched only shards it matched, never the whole file.
    for (const name of ['worker-1', 'worker-2']) {
      const fetched = (await readdir(join(dir.path, name, 'voters'))).filter((entry) =>
        entry.startsWith('v'),
      );
      assert.ok(fetched.length >= 2, `${name} fetched ${fetched.length - 1} shard(s)`);
    }
    // The job completes inside the assembly's handler; its queue message is marked done just after.
    const assembled = async () =>
      (
        await db.query(
          "SELECT count(DISTINCT data -> 'payload' ->> 'jobId')::int AS n FROM pgboss.job WHERE name = 'assemble-list' AND state = 'completed'",
        )
      ).rows[0].n as number;
    const deadline = Date.now() + 10_000;
    while ((await assembled()) < LISTS - 1 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(await assembled(), LISTS - 1, 'every job was assembled, once per job at least');
  });

  test('a worker killed with SIGKILL mid-chunk: the other worker finishes the job, byte-identical', async (t) => {
    if (await skipOrSetUp(t)) return;
    const n = LISTS - 1;
    await submit(clients[0]!, 'kill_me', list(n));
    const deadline = Date.now() + 120_000;
    for (;;) {
      const { rows } = await db.query(
        "SELECT count(*)::int AS n FROM pgboss.job WHERE name LIKE 'match-chunk.%' AND state = 'active'",
      );
      if (rows[0].n >= 2) break;
      assert.ok(Date.now() < deadline, 'chunks never became active');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await workers[0]!.kill();
    const bytes = await download(clients[0]!, 'kill_me');
    assert.ok(bytes.equals(await readFile(reference(n))), 'byte-identical after the kill');
    const retried = await db.query(
      "SELECT max(retry_count)::int AS n FROM pgboss.job WHERE name LIKE 'match-chunk.%'",
    );
    assert.ok(retried.rows[0].n >= 1, "the killed worker's chunk ran again");
  });
});
