import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createTestDatabase, TEST_POSTGRES_URL } from '../../test/support/postgres.ts';
import { log, ROOT } from '../lib/processes.ts';
import {
  createDriver,
  DRIVERS,
  type DriverName,
  FAST_RECOVERY,
  type Payload,
  type QueueDriver,
  type Target,
} from './drivers.ts';

/**
 * `node bench/queue-choice/run.ts [pg-boss|graphile-worker|bullmq-redis|bullmq-pg …] [--runs N]`
 *
 * The measurements behind docs/queue-choice.md, one candidate library after the other, each on a
 * fresh PostgreSQL database (and its own Redis key prefix): enqueue throughput (2,000 and 20,000
 * single enqueues, 8 in flight; 20,000 through the batch API), claim→complete throughput with two
 * consumers, enqueue→start latency at low load (200 messages 20 ms apart, the library's own
 * wake-up), a delayed message, a dead-lettered one, enqueue inside our own transaction (rolled
 * back, then committed), and recovery after a consumer is SIGKILLed mid-message. The figures are
 * the median of `--runs` runs (default 3, each on a fresh database) with their range; the checks
 * run once. Prints a Markdown table (progress on stderr) and writes bench/out/queue-choice.json.
 */
const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const IN_FLIGHT = 8;
const LATENCY_SAMPLES = 200;
const LATENCY_GAP_MS = 20;
const CRASH_CAP_MS = 90_000;
const CHILD = fileURLToPath(new URL('./crash-child.ts', import.meta.url));

interface Result {
  library: string;
  enqueue2k: string;
  drain2k: string;
  enqueue20k: string;
  drain20k: string;
  batch20k: string;
  latencyP50: string;
  latencyP99: string;
  delayedStart: string;
  deadLetter: string;
  transactional: string;
  crashRecovery: string;
}

const round = (n: number) => Math.round(n);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(sorted: readonly number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)]!;
}

function payload(i: number): Payload {
  return { jobId: `job_${i}`, i, sentAt: performance.now() };
}

/** Runs `fn(i)` for i in [0, count) with at most `inFlight` at once; returns messages per second. */
async function rate(count: number, inFlight: number, fn: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < count) await fn(next++);
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

async function timed(count: number, fn: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await fn();
  return count / ((performance.now() - started) / 1000);
}

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await sleep(50);
  }
  return false;
}

async function latency(driver: QueueDriver): Promise<{ p50: number; p99: number }> {
  const samples: number[] = [];
  const stop = await driver.consume('lat', async (p) => {
    samples.push(performance.now() - p.sentAt);
  });
  await sleep(1000);
  for (let i = 0; i < LATENCY_SAMPLES; i++) {
    await driver.enqueue('lat', payload(i));
    await sleep(LATENCY_GAP_MS);
  }
  await waitFor(() => samples.length >= LATENCY_SAMPLES, 30_000);
  await stop();
  if (samples.length < LATENCY_SAMPLES) throw new Error(`only ${samples.length} latency samples arrived`);
  const sorted = samples.sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

async function delayed(driver: QueueDriver): Promise<string> {
  let startedAfter: number | null = null;
  const stop = await driver.consume('delay', async (p) => {
    startedAfter = performance.now() - p.sentAt;
  });
  await driver.enqueue('delay', payload(0), { runAt: Date.now() + 2000 });
  await waitFor(() => startedAfter !== null, 15_000);
  await stop();
  return startedAfter === null
    ? 'not started in 15 s'
    : `runAt +2 s → started after ${(startedAfter / 1000).toFixed(2)} s`;
}

async function deadLetter(driver: QueueDriver): Promise<string> {
  let attempts = 0;
  const stop = await driver.consume('dead', async () => {
    attempts++;
    throw new Error('failing on purpose');
  });
  await driver.enqueue('dead', payload(0), { maxAttempts: 2 });
  const kept = await waitFor(async () => (await driver.dead('dead')) === 1, 30_000);
  await stop();
  return kept
    ? `kept as failed after ${attempts} attempts`
    : `not dead-lettered in 30 s (${attempts} attempts)`;
}

async function transactional(driver: QueueDriver, pgUrl: string): Promise<string> {
  const enqueueWith = driver.enqueueWith;
  if (enqueueWith === null) return 'no (another datastore)';
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    await enqueueWith(client, 'tx', payload(0));
    await client.query('ROLLBACK');
    const afterRollback = await driver.stored('tx');
    await client.query('BEGIN');
    await enqueueWith(client, 'tx', payload(1));
    await client.query('COMMIT');
    const afterCommit = await driver.stored('tx');
    return `rollback → ${afterRollback} stored, commit → ${afterCommit}`;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    return `failed: ${(error as Error).message}`;
  } finally {
    await client.end();
  }
}

/**
 * A child consumer claims the one message and keeps its lease alive (the library's own heartbeat or
 * lock renewal) until it is SIGKILLed; then the time until a consumer here gets the message.
 */
async function crashRecovery(name: DriverName, driver: QueueDriver, target: Target): Promise<string> {
  const child: ChildProcess = spawn(process.execPath, [CHILD, name, JSON.stringify(target), 'crash'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const seen: string[] = [];
  lines.on('line', (line) => seen.push(line));
  try {
    if (!(await waitFor(() => seen.includes('ready'), 30_000))) return 'child did not start';
    await driver.enqueue('crash', payload(0), { maxAttempts: 3 });
    if (!(await waitFor(() => seen.includes('claimed'), 30_000))) return 'child did not claim';
    // Mid-message: let a few heartbeats / lock renewals happen first.
    await sleep(3000);
    let recoveredAt: number | null = null;
    const stop = await driver.consume('crash', async () => {
      recoveredAt ??= performance.now();
    });
    const killedAt = performance.now();
    child.kill('SIGKILL');
    await waitFor(() => recoveredAt !== null, CRASH_CAP_MS);
    await stop();
    return recoveredAt === null
      ? `not redelivered within ${CRASH_CAP_MS / 1000} s`
      : `${((recoveredAt - killedAt) / 1000).toFixed(1)} s`;
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}

interface Figures {
  enqueue2k: number;
  drain2k: number;
  enqueue20k: number;
  drain20k: number;
  batch20k: number;
  latencyP50: number;
  latencyP99: number;
}

interface Checks {
  delayedStart: string;
  deadLetter: string;
  transactional: string;
  crashRecovery: string;
}

/** One run on a fresh database: the figures, and the behaviour checks when `checks` is set. */
async function measureOnce(
  name: DriverName,
  checks: boolean,
): Promise<{ label: string; figures: Figures; checks: Checks | null }> {
  const database = name === 'bullmq-redis' ? null : await createTestDatabase();
  const target: Target = {
    pgUrl: database?.url ?? TEST_POSTGRES_URL,
    redisUrl: REDIS_URL,
    redisPrefix: `lmqbench${randomBytes(4).toString('hex')}`,
  };
  let close = async () => {};
  try {
    const driver = await createDriver(name, target, FAST_RECOVERY);
    close = () => driver.close();
    await driver.setup(['enq_2k', 'enq_20k', 'batch_20k', 'lat', 'delay', 'dead', 'tx', 'crash']);
    log(`${name}: enqueue 2,000`);
    const enqueue2k = await rate(2_000, IN_FLIGHT, (i) => driver.enqueue('enq_2k', payload(i)));
    log(`${name}: drain 2,000 with 2 consumers`);
    const drain2k = await timed(2_000, () => driver.drain('enq_2k', 2_000, 2));
    log(`${name}: enqueue 20,000`);
    const enqueue20k = await rate(20_000, IN_FLIGHT, (i) => driver.enqueue('enq_20k', payload(i)));
    log(`${name}: drain 20,000 with 2 consumers`);
    const drain20k = await timed(20_000, () => driver.drain('enq_20k', 20_000, 2));
    log(`${name}: batch enqueue 20,000`);
    const batch20k = await timed(20_000, async () => {
      for (let start = 0; start < 20_000; start += 1_000) {
        await driver.enqueueBatch(
          'batch_20k',
          Array.from({ length: 1_000 }, (_, k) => payload(start + k)),
        );
      }
    });
    log(`${name}: latency`);
    const { p50, p99 } = await latency(driver);
    const figures = { enqueue2k, drain2k, enqueue20k, drain20k, batch20k, latencyP50: p50, latencyP99: p99 };
    if (!checks) return { label: driver.label, figures, checks: null };
    log(`${name}: delayed, dead letter, transactional enqueue`);
    const delayedStart = await delayed(driver);
    const dead = await deadLetter(driver);
    const tx = await transactional(driver, target.pgUrl);
    log(`${name}: SIGKILL recovery (up to ${CRASH_CAP_MS / 1000} s)`);
    const crash = await crashRecovery(name, driver, target);
    return {
      label: driver.label,
      figures,
      checks: { delayedStart, deadLetter: dead, transactional: tx, crashRecovery: crash },
    };
  } finally {
    await close().catch((error) => log(`${name}: close failed: ${(error as Error).message}`));
    await database?.drop();
  }
}

/** `runs` runs; each figure is the median over the runs (with the range), the checks from the first. */
async function measure(name: DriverName, runs: number): Promise<Result> {
  const all: Figures[] = [];
  let label = '';
  let checks: Checks | null = null;
  for (let run = 0; run < runs; run++) {
    log(`${name}: run ${run + 1} of ${runs}`);
    const outcome = await measureOnce(name, run === 0);
    label = outcome.label;
    checks ??= outcome.checks;
    all.push(outcome.figures);
  }
  const summary = (key: keyof Figures, digits: number) => {
    const values = all.map((f) => f[key]).sort((a, b) => a - b);
    const show = (n: number) => (digits === 0 ? String(round(n)) : n.toFixed(digits));
    const mid = values[Math.floor((values.length - 1) / 2)]!;
    return values.length === 1 ? show(mid) : `${show(mid)} (${show(values[0]!)}–${show(values.at(-1)!)})`;
  };
  return {
    library: label,
    enqueue2k: summary('enqueue2k', 0),
    drain2k: summary('drain2k', 0),
    enqueue20k: summary('enqueue20k', 0),
    drain20k: summary('drain20k', 0),
    batch20k: summary('batch20k', 0),
    latencyP50: summary('latencyP50', 1),
    latencyP99: summary('latencyP99', 1),
    ...checks!,
  };
}

function failed(name: DriverName, error: unknown): Result {
  const reason = `failed: ${(error as Error).message}`;
  return {
    library: name,
    enqueue2k: reason,
    drain2k: '',
    enqueue20k: '',
    drain20k: '',
    batch20k: '',
    latencyP50: '',
    latencyP99: '',
    delayedStart: '',
    deadLetter: '',
    transactional: '',
    crashRecovery: '',
  };
}

function markdown(results: readonly Result[]): string {
  const rows: [string, (r: Result) => string | number][] = [
    ['enqueue 2,000 (msg/s, 8 in flight)', (r) => r.enqueue2k],
    ['claim→complete 2,000 (msg/s, 2 consumers)', (r) => r.drain2k],
    ['enqueue 20,000 (msg/s, 8 in flight)', (r) => r.enqueue20k],
    ['claim→complete 20,000 (msg/s, 2 consumers)', (r) => r.drain20k],
    ['batch enqueue 20,000 (msg/s, 1,000 a batch)', (r) => r.batch20k],
    ['enqueue→start p50 (ms, low load)', (r) => r.latencyP50],
    ['enqueue→start p99 (ms, low load)', (r) => r.latencyP99],
    ['delayed message', (r) => r.delayedStart],
    ['dead letter (maxAttempts 2)', (r) => r.deadLetter],
    ['enqueue in our pg transaction', (r) => r.transactional],
    ['redelivery after SIGKILL mid-message', (r) => r.crashRecovery],
  ];
  const header = `| | ${results.map((r) => r.library).join(' | ')} |`;
  const rule = `|---|${results.map(() => '---').join('|')}|`;
  const body = rows.map(([label, get]) => `| ${label} | ${results.map((r) => get(r)).join(' | ')} |`);
  return [header, rule, ...body].join('\n');
}

const args = process.argv.slice(2);
const runsAt = args.indexOf('--runs');
const runs = runsAt === -1 ? 3 : Number(args[runsAt + 1]);
if (!Number.isInteger(runs) || runs < 1 || runs > 10) {
  console.error('--runs must be an integer from 1 to 10');
  process.exit(2);
}
const names = runsAt === -1 ? args : args.filter((_, i) => i !== runsAt && i !== runsAt + 1);
for (const name of names) {
  if (!(DRIVERS as readonly string[]).includes(name)) {
    console.error(`unknown library ${name}; choose from ${DRIVERS.join(', ')}`);
    process.exit(2);
  }
}
const results: Result[] = [];
for (const name of (names.length > 0 ? names : DRIVERS) as DriverName[]) {
  log(`measuring ${name}`);
  results.push(await measure(name, runs).catch((error) => failed(name, error)));
}
const report = markdown(results);
console.log(report);
const outDir = join(ROOT, 'bench', 'out');
await mkdir(outDir, { recursive: true });
await writeFile(join(outDir, 'queue-choice.json'), `${JSON.stringify(results, null, 2)}\n`);
// Library pools and listeners may keep timers alive after close.
process.exit(0);
