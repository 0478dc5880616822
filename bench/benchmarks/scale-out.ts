/**
 * Scale-out benchmarks (issue 7), each process a real `src/start/main.ts` on one PostgreSQL
 * database (TEST_DATABASE_URL, else the local server) and one S3 bucket (the Swift test server of
 * test/support/s3-server.ts), both throwaway:
 *
 * - `scale-out`: list-matching throughput with 1 and then 2 worker processes behind one api
 *   process (the ratio is the figure), and queue latency from the client's upload to the start of
 *   processing (p50, p99), split into arrival (the worker noticing the object in the bucket) and
 *   queue wait (enqueued → claimed);
 * - `register-pg` / `poll-pg`: the HTTP load of `register` and `poll` against an api process on
 *   PostgreSQL, where every registration takes its rate-limit decision in the database.
 */
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../../test/support/postgres.ts';
import { createTestBucket, TEST_S3, type TestBucket } from '../../test/support/s3-server.ts';
import {
  createApiKey,
  getJson,
  log,
  runCli,
  type ServiceProcess,
  startService,
  tempDir,
} from '../lib/processes.ts';
import { formatNumber, type Recorder } from '../lib/report.ts';
import { type HttpBackend, pollBenchmark, registerBenchmark } from './http-load.ts';
import type { BenchOptions } from './options.ts';

const VOTER_ROWS = 500_000;
const LIST_ROWS = 20_000;
/** Jobs per throughput run: several per worker, so that both stay busy to the end. */
const JOBS = 8;
const LATENCY_JOBS = 60;
const LATENCY_ROWS = 50;
/** Gap between latency uploads: the queue is idle when each arrives, so this is latency, not backlog. */
const LATENCY_GAP_MS = 400;
const TIMEOUT_MS = 20 * 60_000;
const SECRET = 'bench-scale-out-signing-secret-0123456789';

/** Busy and total jiffies of all cores since boot, from /proc/stat (null without /proc). */
export function cpuTimes(): { busy: number; total: number } | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8')
      .split('\n')[0]!
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    const total = fields.reduce((sum, value) => sum + value, 0);
    const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}

/** Share of the machine's CPU time that was busy between two cpuTimes() readings. */
export function busyShare(
  before: ReturnType<typeof cpuTimes>,
  after: ReturnType<typeof cpuTimes>,
): number | null {
  if (before === null || after === null || after.total === before.total) return null;
  return (after.busy - before.busy) / (after.total - before.total);
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

async function withDatabase<T>(fn: (database: TestDatabase) => Promise<T>): Promise<T> {
  const database = await createTestDatabase();
  try {
    return await fn(database);
  } finally {
    await database.drop();
  }
}

/** `register` and `poll` under load with keys, jobs and rate limits in PostgreSQL. */
export async function registerPgBenchmark(recorder: Recorder, options: BenchOptions): Promise<void> {
  await withDatabase(async (database) => {
    const backend: HttpBackend = {
      label: 'PostgreSQL',
      env: { DATABASE_URL: database.url, URL_SIGNING_SECRET: SECRET },
    };
    await registerBenchmark(recorder, options, backend);
  });
}

export async function pollPgBenchmark(recorder: Recorder, options: BenchOptions): Promise<void> {
  await withDatabase(async (database) => {
    await pollBenchmark(recorder, options, {
      label: 'PostgreSQL',
      env: { DATABASE_URL: database.url, URL_SIGNING_SECRET: SECRET },
    });
  });
}

interface Cluster {
  env: Record<string, string>;
  api: ServiceProcess;
  key: string;
  db: pg.Client;
  dir: string;
}

/** Registers, uploads into the bucket; resolves with the job id and when the PUT was answered. */
async function submit(
  cluster: Cluster,
  filename: string,
  body: Buffer,
): Promise<{ jobId: string; putAt: number }> {
  const registered = await getJson(`${cluster.api.url}/service/smartmatch?filename=${filename}`, cluster.key);
  const url = registered.url ?? '';
  const jobId = /incoming\/(job_[^/]+)\//.exec(url)?.[1];
  if (jobId === undefined) throw new Error(`registration gave no bucket URL: ${JSON.stringify(registered)}`);
  const response = await fetch(url, { method: 'PUT', body });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`upload answered ${response.status}`);
  return { jobId, putAt: Date.now() };
}

async function waitDone(cluster: Cluster, filename: string): Promise<void> {
  const deadline = Date.now() + TIMEOUT_MS;
  for (;;) {
    const answer = await getJson(
      `${cluster.api.url}/service/smartmatch/poll?filename=${filename}`,
      cluster.key,
    );
    if (answer.error) throw new Error(`${filename} failed: ${answer.error}`);
    if (answer.url) return;
    if (Date.now() > deadline) throw new Error(`${filename} did not finish`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function startWorkers(cluster: Cluster, count: number): Promise<ServiceProcess[]> {
  const workers: ServiceProcess[] = [];
  for (let n = 1; n <= count; n++) {
    workers.push(
      await startService({
        dataDir: join(cluster.dir, `worker-${n}`),
        env: { ...cluster.env, ROLES: 'worker' },
      }),
    );
  }
  return workers;
}

/** Rows per second of JOBS lists submitted at once, from the first upload to the last result. */
async function throughput(
  cluster: Cluster,
  list: Buffer,
  workers: number,
  run: string,
): Promise<{ rowsPerSecond: number; cpuBusy: number | null }> {
  const processes = await startWorkers(cluster, workers);
  try {
    await warmUp(cluster, list, workers, run);
    log(`scale-out: ${JOBS} lists of ${formatNumber(LIST_ROWS)} rows, ${workers} worker process(es)`);
    const cpuBefore = cpuTimes();
    const started = Date.now();
    const names = Array.from({ length: JOBS }, (_, i) => `${run}_${i}`);
    await Promise.all(names.map((name) => submit(cluster, name, list)));
    await Promise.all(names.map((name) => waitDone(cluster, name)));
    const seconds = (Date.now() - started) / 1000;
    return { rowsPerSecond: (JOBS * LIST_ROWS) / seconds, cpuBusy: busyShare(cpuBefore, cpuTimes()) };
  } finally {
    await Promise.all(processes.map((process) => process.stop()));
  }
}

/** The header and the first `rows` rows of a list (one row per line in generated lists). */
export function headOf(list: Buffer, rows: number): Buffer {
  return Buffer.from(
    list
      .toString('utf8')
      .split('\n')
      .slice(0, rows + 1)
      .join('\n'),
  );
}

/**
 * One small list per worker, not measured: a fresh worker process loads the voter index on its
 * first job (seconds at this size), which is start-up cost, not throughput or queue latency.
 */
async function warmUp(cluster: Cluster, list: Buffer, workers: number, run: string): Promise<void> {
  const small = headOf(list, LATENCY_ROWS);
  const names = Array.from({ length: workers }, (_, i) => `${run}_warmup_${i}`);
  await Promise.all(names.map((name) => submit(cluster, name, small)));
  await Promise.all(names.map((name) => waitDone(cluster, name)));
}

/** Upload → processing start of small lists arriving one at a time. */
async function latency(cluster: Cluster, body: Buffer) {
  const processes = await startWorkers(cluster, 2);
  try {
    await warmUp(cluster, body, 2, 'latency');
    log(`scale-out: queue latency, ${LATENCY_JOBS} small lists ${LATENCY_GAP_MS} ms apart`);
    const submitted: { jobId: string; putAt: number; filename: string }[] = [];
    for (let i = 0; i < LATENCY_JOBS; i++) {
      const filename = `latency_${i}`;
      submitted.push({ ...(await submit(cluster, filename, body)), filename });
      await new Promise((resolve) => setTimeout(resolve, LATENCY_GAP_MS));
    }
    for (const { filename } of submitted) await waitDone(cluster, filename);
    const { rows } = await cluster.db.query(
      `SELECT data -> 'payload' ->> 'jobId' AS job, created_on, started_on FROM pgboss.job
       WHERE name = 'match-list' AND data -> 'payload' ->> 'jobId' = ANY($1::text[])`,
      [submitted.map((s) => s.jobId)],
    );
    const byJob = new Map(rows.map((row) => [row.job as string, row]));
    const total: number[] = [];
    const arrival: number[] = [];
    const queue: number[] = [];
    for (const { jobId, putAt } of submitted) {
      const row = byJob.get(jobId);
      if (row === undefined) throw new Error(`no queue message for ${jobId}`);
      const enqueued = (row.created_on as Date).getTime();
      const start = (row.started_on as Date).getTime();
      total.push(start - putAt);
      arrival.push(enqueued - putAt);
      queue.push(start - enqueued);
    }
    return { total, arrival, queue };
  } finally {
    await Promise.all(processes.map((process) => process.stop()));
  }
}

export async function scaleOutBenchmark(recorder: Recorder, _options: BenchOptions): Promise<void> {
  let database: TestDatabase | undefined;
  let bucket: TestBucket | undefined;
  const dir = await tempDir('scale-out');
  let api: ServiceProcess | undefined;
  let db: pg.Client | undefined;
  try {
    database = await createTestDatabase();
    bucket = await createTestBucket();
    const env = {
      DATABASE_URL: database.url,
      S3_ENDPOINT: TEST_S3.endpoint,
      S3_BUCKET: bucket.name,
      S3_REGION: TEST_S3.region,
      S3_ACCESS_KEY_ID: TEST_S3.accessKeyId,
      S3_SECRET_ACCESS_KEY: TEST_S3.secretAccessKey,
      URL_SIGNING_SECRET: SECRET,
      // One matching thread per worker process: a worker is sized to one core here (2 cores).
      MATCH_THREADS: '1',
    };
    const voters = join(dir.path, 'voters.csv');
    const listPath = join(dir.path, 'list.csv');
    log(`scale-out: generating ${formatNumber(VOTER_ROWS)} voters and a ${formatNumber(LIST_ROWS)}-row list`);
    await runCli(['generate', 'voters', '--rows', String(VOTER_ROWS), '--seed', '7', '--out', voters], {
      dataDir: dir.path,
      timeoutMs: TIMEOUT_MS,
    });
    await runCli(
      [
        ...['generate', 'list', '--from', voters, '--rows', String(LIST_ROWS), '--match-rate', '0.7'],
        ...['--pattern', 'mixed', '--seed', '7', '--out', listPath, '--truth', join(dir.path, 'truth.csv')],
      ],
      { dataDir: dir.path, timeoutMs: TIMEOUT_MS },
    );
    log('scale-out: importing the voter file (published to the bucket; workers fetch it)');
    await runCli(['voters', 'import', voters, '--json'], {
      dataDir: join(dir.path, 'importer'),
      timeoutMs: TIMEOUT_MS,
      env,
    });
    api = await startService({ dataDir: join(dir.path, 'api'), env });
    const key = await createApiKey(join(dir.path, 'api'), env);
    db = new pg.Client({ connectionString: database.url });
    await db.connect();
    const cluster: Cluster = { env, api, key, db, dir: dir.path };
    const { readFile } = await import('node:fs/promises');
    const list = await readFile(listPath);

    const one = await throughput(cluster, list, 1, 'one');
    const two = await throughput(cluster, list, 2, 'two');
    const busy = (share: number | null) =>
      share === null ? 'CPU use unknown' : `machine CPU ${Math.round(share * 100)}% busy`;
    recorder.metric('match throughput, 1 worker process', one.rowsPerSecond, 'rows/s', {
      note: `${JOBS} lists × ${formatNumber(LIST_ROWS)} rows (pattern mixed) on ${formatNumber(VOTER_ROWS)} voters, PostgreSQL + S3, first upload to last result; ${busy(one.cpuBusy)}`,
    });
    recorder.metric('match throughput, 2 worker processes', two.rowsPerSecond, 'rows/s', {
      note: `same lists; MATCH_THREADS=1 per worker; ${busy(two.cpuBusy)}`,
    });
    // Both runs are CPU-bound on a small machine: rows per busy core says how well work spreads.
    const perCore = (run: typeof one) =>
      run.cpuBusy === null ? null : run.rowsPerSecond / (run.cpuBusy * cpus().length);
    const [coreOne, coreTwo] = [perCore(one), perCore(two)];
    recorder.metric('throughput ratio, 2 workers / 1', two.rowsPerSecond / one.rowsPerSecond, '×', {
      digits: 2,
      note:
        `${cpus().length} cores here, shared with the api process, PostgreSQL and Swift` +
        (coreOne === null || coreTwo === null
          ? ''
          : `; rows/s per busy core ${formatNumber(coreOne)} → ${formatNumber(coreTwo)} (${formatNumber(coreTwo / coreOne, 2)}×)`),
    });

    const measured = await latency(cluster, headOf(list, LATENCY_ROWS));
    const describe = (values: number[]) =>
      `p50 ${formatNumber(percentile(values, 0.5))} ms, p99 ${formatNumber(percentile(values, 0.99))} ms`;
    recorder.metric('upload → processing start, p50', percentile(measured.total, 0.5), 'ms', {
      note: `${LATENCY_JOBS} uploads; arrival (bucket poll, UPLOAD_POLL_MS 1000) ${describe(measured.arrival)}`,
    });
    recorder.metric('upload → processing start, p99', percentile(measured.total, 0.99), 'ms', {
      note: `queue wait (enqueued → claimed) ${describe(measured.queue)}`,
    });
    recorder.raw['scaleOut'] = { throughput: { one, two }, latencyMs: measured };
  } finally {
    await db?.end().catch(() => {});
    await api?.stop();
    await database?.drop().catch(() => {});
    await bucket?.drop().catch(() => {});
    await dir.remove();
  }
}
