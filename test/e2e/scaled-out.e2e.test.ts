/**
 * Scale-out on loopback, every part a separate real process: two api processes and two worker
 * processes sharing one PostgreSQL database (keys, jobs, rate limits, the pg-boss queue) and one
 * S3 bucket (Swift's s3api: uploads, results, presigned SigV4 URLs).
 *
 * - the voter file imported once, published to the bucket, fetched and cached by each worker;
 * - 20 concurrent jobs from 5 keys, spread over both api processes, each result byte-identical to
 *   what the embedded single-process pipeline writes (`listmatch match` on its own DATA_DIR);
 * - fair scheduling: a client that queued four big lists first does not hold back the small lists
 *   that four other clients queue after them;
 * - a worker killed with SIGKILL mid-job: the other worker finishes its job, byte-identical;
 * - rate limits counted once across both api processes.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, type TestContext, test } from 'node:test';
import pg from 'pg';
import { createTestDatabase, skipWithoutPostgres, type TestDatabase } from '../support/postgres.ts';
import { createTestBucket, skipWithoutS3, TEST_S3, type TestBucket } from '../support/s3-server.ts';
import { scaledOutEnv } from '../support/scaled-out-env.ts';
import { listCsv, putFile, voterCsv } from './e2e-data.ts';
import { cli, json, pollUntilDone, type ServerProcess, startServer, tempDir } from './process-harness.ts';

const VOTERS = 200_000;
/** Rows of a big list: long enough that the small lists all run while one big list does. */
const BIG_ROWS = 250_000;
const SMALL_ROWS = 300;
const REGISTER_PER_MINUTE = 10;

interface Client {
  id: string;
  key: string;
}

describe('2 api + 2 worker processes on PostgreSQL and S3', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let database: TestDatabase;
  let bucket: TestBucket;
  let shared: Record<string, string>;
  const apis: ServerProcess[] = [];
  const workers: ServerProcess[] = [];
  const clients: Client[] = [];
  const big = () => join(dir.path, 'big.csv');
  const small = (n: number) => join(dir.path, `small-${n}.csv`);
  const reference = (name: string) => join(dir.path, `reference-${name}.csv`);
  let db: pg.Client;
  let voterVersion: string;

  let setUp: Promise<void> | null = null;
  /** True when the test must skip (and has); else the cluster is up (started by the first test). */
  async function skipOrSetUp(t: TestContext): Promise<boolean> {
    if ((await skipWithoutPostgres(t)) || (await skipWithoutS3(t))) {
      return true;
    }
    setUp ??= startCluster();
    await setUp;
    return false;
  }

  async function startCluster(): Promise<void> {
    dir = await tempDir();
    database = await createTestDatabase();
    bucket = await createTestBucket();
    shared = {
      ...scaledOutEnv(database, bucket, 'scaled-out-e2e-secret-0123456789abcdef'),
      RATE_LIMIT_POLL_SECONDS: '0',
      RATE_LIMIT_REGISTER_PER_MINUTE: String(REGISTER_PER_MINUTE),
      QUEUE_LEASE_SECONDS: '2',
      QUEUE_POLL_MS: '100',
      UPLOAD_POLL_MS: '100',
      MATCH_THREADS: '1',
      LOG_LEVEL: 'warn',
    };
    await writeFile(join(dir.path, 'voters.csv'), voterCsv(VOTERS));
    await writeFile(big(), listCsv(BIG_ROWS, VOTERS));
    for (let n = 0; n < 4; n++) await writeFile(small(n), listCsv(SMALL_ROWS + n, VOTERS));

    // The embedded single-process reference: the same pipeline, no PostgreSQL, no S3.
    const embedded = { DATA_DIR: join(dir.path, 'embedded'), LOG_LEVEL: 'warn' };
    cli(['voters', 'import', join(dir.path, 'voters.csv'), '--json'], embedded);
    for (const [name, path] of [['big', big()], ...[0, 1, 2, 3].map((n) => [`small-${n}`, small(n)])]) {
      cli(['match', path!, '--out', reference(name!), '--append', 'party'], embedded);
    }

    // Imported once, on an operator's machine: published to the bucket, fetched by the workers.
    const imported = JSON.parse(
      cli(['voters', 'import', join(dir.path, 'voters.csv'), '--json'], {
        ...shared,
        DATA_DIR: join(dir.path, 'importer'),
      }),
    ) as { version: string };
    voterVersion = imported.version;
    for (let n = 0; n < 6; n++) {
      const created = JSON.parse(
        cli(['keys', 'create', '--name', `client ${n}`, '--json'], { ...shared, DATA_DIR: dir.path }),
      ) as Client;
      cli(['profiles', 'set', created.id, '--append', 'party'], { ...shared, DATA_DIR: dir.path });
      clients.push(created);
    }
    for (const name of ['api-1', 'api-2']) {
      apis.push(await startServer({ ...shared, ROLES: 'api', DATA_DIR: join(dir.path, name) }));
    }
    for (const name of ['worker-1', 'worker-2']) {
      workers.push(await startServer({ ...shared, ROLES: 'worker', DATA_DIR: join(dir.path, name) }));
    }
    db = new pg.Client({ connectionString: database.url });
    await db.connect();
  }

  after(async () => {
    if (setUp === null) return;
    await setUp.catch(() => {});
    await db?.end().catch(() => {});
    await Promise.allSettled([...apis, ...workers].map((process) => process.stop()));
    await database?.drop();
    await bucket?.drop();
    await dir?.remove();
  });

  /** Registers on one api process, uploads straight into the bucket; returns the job id. */
  async function submit(api: ServerProcess, client: Client, filename: string, path: string): Promise<string> {
    const registration = await json(`${api.base}/service/smartmatch?filename=${filename}`, client.key);
    assert.equal(registration.status, 200, JSON.stringify(registration.body));
    const url = String(registration.body['url']);
    assert.ok(url.startsWith(`${TEST_S3.endpoint}/${bucket.name}/`), 'the client uploads into the bucket');
    assert.equal(await putFile(url, path), 200);
    return /incoming\/(job_[^/]+)\//.exec(url)![1]!;
  }

  async function download(api: ServerProcess, client: Client, filename: string): Promise<Buffer> {
    const done = await pollUntilDone(api.base, client.key, filename, 240_000);
    assert.equal(done['error'], null, `${filename}: ${String(done['error'])}`);
    const response = await fetch(String(done['url']));
    assert.equal(response.status, 200);
    return Buffer.from(await response.arrayBuffer());
  }

  /** Match-list queue messages now active (claimed by a worker), from pg-boss's table. */
  async function activeMatches(): Promise<number> {
    const { rows } = await db.query(
      "SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'match-list' AND state = 'active'",
    );
    return rows[0].n as number;
  }

  async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** What the match-list queue held at one moment (the snapshot's `now()`, in ms). */
  interface QueueSnapshot {
    at: number;
    /** pg-boss state per job id. */
    state: Map<string, string>;
    /** started_on per job id (a new claim of the same message changes it). */
    started: Map<string, number>;
  }
  const isActive = (snapshot: QueueSnapshot, job: string) => snapshot.state.get(job) === 'active';
  const isWaiting = (snapshot: QueueSnapshot, job: string) =>
    snapshot.state.get(job) === 'created' || snapshot.state.get(job) === 'retry';

  /** Snapshots of the match-list queue every 50 ms on a connection of its own, until stopped. */
  function sampleQueue(): { stop: () => Promise<QueueSnapshot[]> } {
    const snapshots: QueueSnapshot[] = [];
    let stopped = false;
    const running = (async () => {
      const sampler = new pg.Client({ connectionString: database.url });
      await sampler.connect();
      try {
        while (!stopped) {
          const { rows } = await sampler.query(
            `SELECT now() AS at, data -> 'payload' ->> 'jobId' AS job, state::text AS state, started_on
             FROM pgboss.job WHERE name = 'match-list'`,
          );
          if (rows.length > 0)
            snapshots.push({
              at: (rows[0].at as Date).getTime(),
              state: new Map(rows.map((row) => [row.job as string, row.state as string])),
              started: new Map(
                rows.map((row) => [row.job as string, (row.started_on as Date | null)?.getTime() ?? 0]),
              ),
            });
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      } finally {
        await sampler.end();
      }
    })();
    return {
      stop: async () => {
        stopped = true;
        await running;
        return snapshots;
      },
    };
  }

  test('20 jobs from 5 keys over both api processes: all complete, byte-identical, small clients not starved', async (t) => {
    if (await skipOrSetUp(t)) return;
    const [bigClient, ...smallClients] = clients.slice(0, 5) as [Client, ...Client[]];
    // The big client queues four big lists; both workers take one each.
    const sampler = sampleQueue();
    const bigJobs: string[] = [];
    for (let i = 0; i < 4; i++) bigJobs.push(await submit(apis[i % 2]!, bigClient, `big_${i}`, big()));
    await waitFor('both workers busy with big lists', async () => (await activeMatches()) === 2);
    // Four other clients queue four small lists each, after the big ones.
    const smallJobs = new Map<string, { client: Client; filename: string; list: number }>();
    await Promise.all(
      smallClients.map(async (client, c) => {
        for (let i = 0; i < 4; i++) {
          const filename = `small_${c}_${i}`;
          const jobId = await submit(apis[(c + i) % 2]!, client, filename, small(c));
          smallJobs.set(jobId, { client, filename, list: c });
        }
      }),
    );

    const results = await Promise.all([
      ...[0, 1, 2, 3].map(async (i) => ({
        name: 'big',
        bytes: await download(apis[(i + 1) % 2]!, bigClient, `big_${i}`),
      })),
      ...[...smallJobs.values()].map(async ({ client, filename, list }) => ({
        name: `small-${list}`,
        bytes: await download(apis[0]!, client, filename),
      })),
    ]);
    assert.equal(results.length, 20);
    for (const { name, bytes } of results) {
      const expected = await readFile(reference(name));
      assert.ok(
        bytes.equals(expected),
        `${name}: the scaled-out result equals the embedded one byte for byte`,
      );
    }

    // Fairness, from what the queue held as it ran. A free worker takes the oldest message of a
    // client with nothing running, else the oldest (a busy client still takes slots nobody else
    // wants). Under plain FIFO the big client's third and fourth lists would start before any
    // small one. The promise is checked between each two consecutive snapshots of the queue: a big
    // list claimed between them while another big list ran through both (the same attempt) and a
    // small list, seen waiting in both and in the snapshot before them (so that the claim's own
    // statements could see it too), belonged to a client with nothing running, breaks it. The
    // snapshots see only committed messages, so a small list queued but not yet visible (an upload
    // still being accepted), and a big list whose lease lapsed and was claimed again, are judged
    // as the scheduler saw them, not by their timestamps.
    const snapshots = await sampler.stop();
    assert.ok(snapshots.length > 10, `the queue was sampled while it ran (${snapshots.length} snapshots)`);
    const clientOf = new Map<string, string>([
      ...bigJobs.map((job) => [job, 'big'] as const),
      ...[...smallJobs].map(([job, { list }]) => [job, `small-${list}`] as const),
    ]);
    const violations: string[] = [];
    let besideRunning = 0;
    for (let i = 2; i < snapshots.length; i++) {
      const [earlier, before, after] = [snapshots[i - 2]!, snapshots[i - 1]!, snapshots[i]!];
      const claimedBig = bigJobs.filter((job) => isActive(after, job) && !isActive(before, job));
      if (claimedBig.length === 0) continue;
      const runningBig = bigJobs.find(
        (job) =>
          isActive(before, job) && isActive(after, job) && before.started.get(job) === after.started.get(job),
      );
      if (runningBig === undefined) continue;
      besideRunning++;
      const busyClients = new Set(
        [...after.state].filter(([, state]) => state === 'active').map(([job]) => clientOf.get(job)),
      );
      const passedOver = [...smallJobs.keys()].filter(
        (job) =>
          isWaiting(earlier, job) &&
          isWaiting(before, job) &&
          isWaiting(after, job) &&
          !busyClients.has(clientOf.get(job)),
      );
      if (passedOver.length > 0)
        violations.push(
          `between ${before.at} and ${after.at} a big list started beside a running one while ${passedOver.length} small list(s) of idle clients waited`,
        );
    }
    // Each list's (last) claim, from pg-boss's own record: a small list may run between snapshots.
    const { rows } = await db.query(
      `SELECT data -> 'payload' ->> 'jobId' AS job, started_on FROM pgboss.job WHERE name = 'match-list'`,
    );
    const startOf = new Map(rows.map((row) => [row.job as string, (row.started_on as Date).getTime()]));
    const bigStarts = bigJobs.map((job) => startOf.get(job)!).sort((a, b) => a - b);
    const firstSmallStart = Math.min(...[...smallJobs.keys()].map((job) => startOf.get(job)!));
    t.diagnostic(
      `${snapshots.length} queue snapshots over ${snapshots.at(-1)!.at - snapshots[0]!.at} ms; big lists started beside a running one: ${besideRunning}`,
    );
    assert.ok(
      firstSmallStart < bigStarts[2]!,
      `a small list started before the big client's third (first small ${firstSmallStart}, third big ${bigStarts[2]})`,
    );
    assert.deepEqual(violations, [], "no big list started while an idle client's small list waited");

    // Both workers matched on the one published version, fetched into their own DATA_DIR.
    for (const name of ['worker-1', 'worker-2']) {
      assert.ok(existsSync(join(dir.path, name, 'voters', voterVersion, 'meta.json')), `${name} fetched it`);
    }
    // Each worker process serves its own health and metrics, and no client routes.
    for (const worker of workers) {
      const metrics = await (await fetch(`${worker.base}/metrics`)).text();
      assert.match(
        metrics,
        /listmatch_stage_duration_seconds_count\{queue="match-list",outcome="done"\} [1-9]/,
      );
      assert.equal((await fetch(`${worker.base}/readyz`)).status, 200);
      assert.equal((await fetch(`${worker.base}/service/smartmatch?filename=x`)).status, 404);
    }
  });

  test('a worker killed with SIGKILL mid-job: the other worker finishes it, byte-identical', async (t) => {
    if (await skipOrSetUp(t)) return;
    const client = clients[0]!;
    await submit(apis[0]!, client, 'kill_a', big());
    await submit(apis[1]!, client, 'kill_b', big());
    await waitFor('both workers busy', async () => (await activeMatches()) === 2);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const [victim, survivor] = workers as [ServerProcess, ServerProcess];
    await victim.kill();
    // Proof that the kill landed mid-job: a list is still being matched, none of the two is done.
    const { rows } = await db.query(
      "SELECT count(*)::int AS n FROM jobs WHERE filename IN ('kill_a', 'kill_b') AND state = 'complete'",
    );
    assert.equal(rows[0].n, 0, 'the kill came after a job finished; make the list larger');

    const expected = await readFile(reference('big'));
    for (const filename of ['kill_a', 'kill_b']) {
      const bytes = await download(apis[1]!, client, filename);
      assert.ok(bytes.equals(expected), `${filename}: byte-identical after the kill`);
    }
    const retried = await db.query(
      `SELECT max(retry_count)::int AS n FROM pgboss.job j JOIN jobs ON jobs.id = j.data -> 'payload' ->> 'jobId'
       WHERE j.name = 'match-list' AND jobs.filename IN ('kill_a', 'kill_b')`,
    );
    assert.equal(retried.rows[0].n, 1, "the killed worker's job ran again, once");
    assert.equal((await fetch(`${survivor.base}/healthz`)).status, 200);
  });

  test('registration limits are counted once across both api processes', async (t) => {
    if (await skipOrSetUp(t)) return;
    const client = clients[5]!;
    const answers = await Promise.all(
      Array.from({ length: 3 * REGISTER_PER_MINUTE }, (_, i) =>
        json(`${apis[i % 2]!.base}/service/smartmatch?filename=limited_${i}`, client.key),
      ),
    );
    const allowed = answers.filter((answer) => answer.status === 200).length;
    const refused = answers.filter((answer) => answer.status === 429);
    assert.equal(allowed, REGISTER_PER_MINUTE, 'exactly the limit, not the limit per process');
    assert.equal(refused.length, 2 * REGISTER_PER_MINUTE);
    assert.match(String(refused[0]!.body['error']), /rate limit|too many/i);
  });
});
