import autocannon from 'autocannon';
import { createApiKey, getJson, log, procStatusBytes, startService, tempDir } from '../lib/processes.ts';
import type { Recorder } from '../lib/report.ts';
import type { BenchOptions } from './options.ts';

/** The load: 10 s, 50 connections. */
const DURATION_SECONDS = 10;
const CONNECTIONS = 50;
/** A bound on the request count as well as the time (far above what 2 cores can serve in 10 s). */
const MAX_REQUESTS = 2_000_000;
/** Warm-up before the measured run, not reported: lets the JIT and the SQLite page cache settle. */
const WARMUP_REQUESTS = 2_000;

/**
 * Runs autocannon in this process against a service in another one. The run is bounded by its
 * duration and by MAX_REQUESTS, and stopped by a timer if it somehow overruns.
 */
async function load(options: autocannon.Options, hardLimitMs: number): Promise<autocannon.Result> {
  const instance = autocannon(options);
  const timer = setTimeout(() => instance.stop(), hardLimitMs);
  try {
    return await instance;
  } finally {
    clearTimeout(timer);
  }
}

/** Where the api keeps its keys, jobs and rate limits: embedded SQLite, or a PostgreSQL database. */
export interface HttpBackend {
  label: string;
  /** Environment of the service and the CLI (DATABASE_URL, …); empty for the embedded default. */
  env: Record<string, string>;
}

const EMBEDDED: HttpBackend = { label: 'embedded', env: {} };

async function measure(
  name: 'poll' | 'register',
  recorder: Recorder,
  options: BenchOptions,
  requestFor: (key: string) => autocannon.Request,
  prepare: (baseUrl: string, key: string) => Promise<void>,
  backend: HttpBackend = EMBEDDED,
): Promise<void> {
  const dir = await tempDir(name);
  const service = await startService({
    dataDir: dir.path,
    nodeArgs: options.profileArgs(name, 'server'),
    env: backend.env,
  });
  try {
    const key = await createApiKey(dir.path, backend.env);
    await prepare(service.url, key);
    const base = { url: service.url, headers: { 'x-api-key': key }, timeout: 10 };

    log(`${name}: warm-up (${WARMUP_REQUESTS} requests)`);
    await load({ ...base, connections: 10, amount: WARMUP_REQUESTS, requests: [requestFor(key)] }, 30_000);

    log(`${name}: ${DURATION_SECONDS} s, ${CONNECTIONS} connections`);
    const rssBefore = procStatusBytes(service.pid);
    const result = await load(
      {
        ...base,
        connections: CONNECTIONS,
        duration: DURATION_SECONDS,
        maxOverallRequests: MAX_REQUESTS,
        requests: [requestFor(key)],
      },
      (DURATION_SECONDS + 20) * 1000,
    );
    const rssAfter = procStatusBytes(service.pid);

    const ok = result['2xx'];
    const perSecond = ok / result.duration;
    const statusCodes = Object.entries(result.statusCodeStats)
      .map(([code, stats]) => `${code}×${stats.count}`)
      .join(', ');
    const target = name === 'poll' && backend === EMBEDDED;
    const label = backend === EMBEDDED ? '' : ` (${backend.label})`;
    recorder.metric(`requests/s (2xx)${label}`, perSecond, 'req/s', {
      ...(target ? { target: { min: 5_000 } } : {}),
      note: `${ok.toLocaleString('en-US')} × 2xx in ${result.duration.toFixed(1)} s; autocannon mean of per-second samples ${Math.round(result.requests.average)}`,
    });
    recorder.metric(`latency p99${label}`, result.latency.p99, 'ms', {
      ...(target ? { target: { max: 20 } } : {}),
      note: `p50 ${result.latency.p50} ms, p97.5 ${result.latency.p97_5} ms, max ${result.latency.max} ms`,
    });
    recorder.check(
      `responses${label}`,
      `${statusCodes || 'none'}; errors ${result.errors}, timeouts ${result.timeouts}`,
      'all 2xx, no errors',
      result.non2xx === 0 && result.errors === 0 && result.timeouts === 0 && ok > 0,
    );
    recorder.raw[`${name}${label}`] = {
      duration: result.duration,
      connections: result.connections,
      requests: result.requests,
      latency: result.latency,
      throughput: result.throughput,
      statusCodeStats: result.statusCodeStats,
      errors: result.errors,
      timeouts: result.timeouts,
      non2xx: result.non2xx,
      serverRssBytes: { before: rssBefore, after: rssAfter },
    };
  } finally {
    await service.stop();
    await dir.remove();
  }
}

/** `GET /service/smartmatch/poll?filename=…` of one registered job, poll limit disabled. */
export async function pollBenchmark(
  recorder: Recorder,
  options: BenchOptions,
  backend: HttpBackend = EMBEDDED,
): Promise<void> {
  const filename = 'bench_poll.csv';
  await measure(
    'poll',
    recorder,
    options,
    () => ({ method: 'GET', path: `/service/smartmatch/poll?filename=${filename}` }),
    async (baseUrl, key) => {
      const registered = await getJson(`${baseUrl}/service/smartmatch?filename=${filename}`, key);
      if (typeof registered.url !== 'string' || registered.url === '') {
        throw new Error(`registration gave no upload URL: ${JSON.stringify(registered)}`);
      }
      const polled = await getJson(`${baseUrl}/service/smartmatch/poll?filename=${filename}`, key);
      if (polled.status !== 'registered') throw new Error(`unexpected poll answer ${JSON.stringify(polled)}`);
    },
    backend,
  );
}

/** `GET /service/smartmatch?filename=bench_<n>`: every request registers a new job. */
export async function registerBenchmark(
  recorder: Recorder,
  options: BenchOptions,
  backend: HttpBackend = EMBEDDED,
): Promise<void> {
  let next = 0;
  await measure(
    'register',
    recorder,
    options,
    () => ({
      method: 'GET',
      setupRequest: (request) => ({ ...request, path: `/service/smartmatch?filename=bench_${next++}` }),
    }),
    async () => {},
    backend,
  );
  recorder.raw[backend === EMBEDDED ? 'jobsRegistered' : `jobsRegistered (${backend.label})`] = next;
}
