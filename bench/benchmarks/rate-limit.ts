/**
 * The `rate-limit` benchmark: PgRateLimiter.consume calls per second against one PostgreSQL
 * database, from one process and from two processes at once (two api nodes), each with its own
 * pool. Run by bench/run-all.ts; this file is also the child process it spawns:
 *
 * RATE_LIMIT_BENCH_URL=postgres://… node bench/benchmarks/rate-limit.ts <throughput|check> <startAtMs> [seconds] [hot]
 *
 * The database comes from test/support/postgres.ts (TEST_DATABASE_URL, else the local server): a
 * throwaway database, dropped at the end. The URL goes to the children in the environment, not
 * on their command line.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { openPgDatabase } from '../../src/adapters/postgres/pg-database.ts';
import { PgRateLimiter } from '../../src/adapters/rate-limit/pg-rate-limiter.ts';
import type { RateRule } from '../../src/domain/ports/rate-limiter.ts';
import { createTestDatabase } from '../../test/support/postgres.ts';
import { log, ROOT } from '../lib/processes.ts';
import { formatNumber, type Recorder } from '../lib/report.ts';
import type { BenchOptions } from './options.ts';

const POOL_SIZE = 10;
/** Calls in flight per process: more than the pool, as a busy api node has. */
const IN_FLIGHT = 32;
const SECONDS = 5;
/** Distinct buckets of the spread workload: keys × filenames being polled. */
const BUCKETS = 10_000;
/** A rule that allows most calls: the cost of a decision does not depend on it. */
const RULE: RateRule = { limit: 1_000, windowMs: 60_000 };
/** The correctness check: both processes at one instant, on one bucket. */
const CHECK_CALLS_PER_PROCESS = 1_000;
const CHECK_RULE: RateRule = { limit: 500, windowMs: 3_600_000 };
const CHECK_NOW = 1_700_000_000_000;
const URL_ENV = 'RATE_LIMIT_BENCH_URL';

interface ChildResult {
  calls: number;
  allowed: number;
  seconds: number;
  p50Ms: number;
  p99Ms: number;
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

/** Child: waits for the shared start instant, then keeps IN_FLIGHT calls going for `seconds`. */
async function child(mode: string, startAt: number, seconds: number, hot: boolean): Promise<ChildResult> {
  const url = process.env[URL_ENV];
  if (url === undefined) throw new Error(`${URL_ENV} is not set`);
  const database = await openPgDatabase(url, { poolSize: POOL_SIZE });
  try {
    const limiter = new PgRateLimiter(database);
    // Open every pooled connection (and prepare the statement on it) before the clock starts.
    await Promise.all(
      Array.from(
        { length: POOL_SIZE * 2 },
        async (_, i) => await limiter.consume(`warmup:${process.pid}:${i}`, RULE),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, startAt - Date.now())));
    if (mode === 'check') {
      const decisions = await Promise.all(
        Array.from(
          { length: CHECK_CALLS_PER_PROCESS },
          async () => await limiter.consume('check', CHECK_RULE, CHECK_NOW),
        ),
      );
      return {
        calls: decisions.length,
        allowed: decisions.filter((d) => d.allowed).length,
        seconds: 0,
        p50Ms: 0,
        p99Ms: 0,
      };
    }
    const latencies: number[] = [];
    let allowed = 0;
    let next = 0;
    const started = performance.now();
    const deadline = started + seconds * 1000;
    const worker = async () => {
      while (performance.now() < deadline) {
        const bucket = hot
          ? 'hot'
          : `poll:key_${next % 100}:list_${Math.floor(next / 100) % (BUCKETS / 100)}`;
        next = (next + 7919) % BUCKETS;
        const t = performance.now();
        if ((await limiter.consume(bucket, RULE)).allowed) allowed++;
        latencies.push(performance.now() - t);
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    const elapsed = (performance.now() - started) / 1000;
    const sorted = Float64Array.from(latencies).sort();
    return {
      calls: latencies.length,
      allowed,
      seconds: elapsed,
      p50Ms: percentile(sorted, 0.5),
      p99Ms: percentile(sorted, 0.99),
    };
  } finally {
    await database.close();
  }
}

async function runChildren(
  url: string,
  processes: number,
  args: { mode: 'throughput' | 'check'; hot?: boolean },
): Promise<ChildResult[]> {
  // Children start together, a moment after the slowest has connected.
  const startAt = Date.now() + 1_500;
  const children = Array.from({ length: processes }, () =>
    spawn(
      process.execPath,
      [
        join('bench', 'benchmarks', 'rate-limit.ts'),
        args.mode,
        String(startAt),
        String(SECONDS),
        ...(args.hot === true ? ['hot'] : []),
      ],
      { cwd: ROOT, env: { ...process.env, [URL_ENV]: url }, stdio: ['ignore', 'pipe', 'inherit'] },
    ),
  );
  return Promise.all(
    children.map(async (c) => {
      const out: string[] = [];
      c.stdout.setEncoding('utf8').on('data', (chunk: string) => out.push(chunk));
      const [code] = (await once(c, 'close')) as [number | null];
      if (code !== 0) throw new Error(`rate-limit child exited with code ${code}`);
      return JSON.parse(out.join('').trim().split('\n').at(-1)!) as ChildResult;
    }),
  );
}

/**
 * consume/s of one and of two processes (pool of 10 each, 32 calls in flight each), over 10,000
 * buckets and on one hot bucket (every call waits for the previous one's row lock). The database
 * clock decides, as in production. Target: the poll route's 5,000 req/s, which the shared limiter
 * must not cap. Check: two processes sending 1,000 calls each at one instant to a bucket of 500
 * get exactly 500 allowed.
 */
export async function rateLimitBenchmark(recorder: Recorder, _options: BenchOptions): Promise<void> {
  const database = await createTestDatabase();
  try {
    const setup = await openPgDatabase(database.url, { poolSize: 1, migrate: true });
    await setup.close();
    const raw: Record<string, ChildResult[]> = {};
    for (const hot of [false, true]) {
      for (const processes of [1, 2]) {
        const label = `${processes} process${processes === 1 ? '' : 'es'}, ${hot ? 'one hot bucket' : `${formatNumber(BUCKETS)} buckets`}`;
        log(`rate-limit: ${label}, ${SECONDS} s`);
        const results = await runChildren(database.url, processes, { mode: 'throughput', hot });
        raw[label] = results;
        const rate = results.reduce((sum, r) => sum + r.calls / r.seconds, 0);
        log(`rate-limit: ${label}: ${formatNumber(rate)} consume/s`);
        recorder.metric(
          `PgRateLimiter.consume, ${label} (pool ${POOL_SIZE} and ${IN_FLIGHT} in flight per process)`,
          rate,
          'consume/s',
          {
            ...(hot ? {} : { target: { min: 5_000 } }),
            note: results
              .map(
                (r, i) =>
                  `process ${i + 1}: ${formatNumber(r.calls / r.seconds)}/s, p50 ${r.p50Ms.toFixed(1)} ms, p99 ${r.p99Ms.toFixed(1)} ms`,
              )
              .join('; '),
          },
        );
      }
    }
    log('rate-limit: correctness check, 2 processes at one instant');
    const check = await runChildren(database.url, 2, { mode: 'check' });
    raw['check'] = check;
    recorder.check(
      `2 processes × ${formatNumber(CHECK_CALLS_PER_PROCESS)} simultaneous calls, limit ${CHECK_RULE.limit}: allowed`,
      String(check.reduce((sum, r) => sum + r.allowed, 0)),
      String(CHECK_RULE.limit),
    );
    recorder.raw['rate-limit'] = raw;
  } finally {
    await database.drop();
  }
}

if (import.meta.main) {
  const [mode, startAt, seconds, hot] = process.argv.slice(2);
  if ((mode !== 'throughput' && mode !== 'check') || startAt === undefined) {
    console.error(
      'usage: node bench/benchmarks/rate-limit.ts <throughput|check> <startAtMs> [seconds] [hot]',
    );
    process.exit(2);
  }
  const result = await child(mode, Number(startAt), Number(seconds ?? SECONDS), hot === 'hot');
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
