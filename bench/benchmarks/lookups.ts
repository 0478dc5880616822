import { createReadStream } from 'node:fs';
import { readdir, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { isVoterVersion } from '../../src/adapters/voters/snapshot-files.ts';
import { loadConfig } from '../../src/config.ts';
import { localVoterStore } from '../../src/start/voter-stores.ts';
import { latencyOf, openLoop } from '../lib/open-loop.ts';
import {
  createApiKeyWithId,
  getJson,
  log,
  namedProcessesCpuMs,
  procStatusBytes,
  runCli,
  startService,
  tempDir,
  threadCpuMs,
} from '../lib/processes.ts';
import type { Recorder } from '../lib/report.ts';
import type { BenchOptions } from './options.ts';
import type { VoterFixture } from './voters.ts';

/** The load: 50 concurrent clients, 10 s; the rate its p99 is asked at. */
const CONNECTIONS = 50;
const TARGET_RATE = 2000;
/**
 * The rate of the publish under load: the 2,000/s unless LOOKUPS_SWAP_RATE says another
 * (a rate with headroom on a slow machine shows what the swap itself costs, apart from a lookup
 * thread already near its capacity).
 */
const SWAP_RATE = Number(process.env['LOOKUPS_SWAP_RATE'] ?? TARGET_RATE);
const DURATION_SECONDS = 10;
/** Voters sampled from the file to ask for (every k-th row). */
const SAMPLE = 5_000;
const PHONES_PER_SEARCH = 500;
const PHONE_SEARCHES = 20;
/** How often the api looks for a newly published voter file here (LOOKUP_REFRESH_SECONDS). */
const REFRESH_SECONDS = 2;
/** After the new version is in use, how long the swap window goes on. */
const AFTER_SWAP_MS = 2000;

/** Rows of the voter CSV sampled evenly (no quoted commas in the synthetic file). */
async function sampleVoters(path: string, rows: number): Promise<Record<string, string>[]> {
  const every = Math.max(1, Math.floor(rows / SAMPLE));
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Number.POSITIVE_INFINITY });
  let header: string[] | null = null;
  let n = 0;
  const out: Record<string, string>[] = [];
  for await (const line of lines) {
    if (header === null) {
      header = line.split(',');
      continue;
    }
    if (n++ % every !== 0) continue;
    const cells = line.split(',');
    out.push(Object.fromEntries(header.map((name, i) => [name, cells[i] ?? ''])));
  }
  return out;
}

/** Each request of a connection takes the next of `paths`, round robin. */
function rotating(paths: string[]): autocannon.Request {
  let next = 0;
  return {
    method: 'GET',
    setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length]! }),
  } as autocannon.Request;
}

async function load(options: autocannon.Options): Promise<autocannon.Result> {
  const instance = autocannon(options);
  const timer = setTimeout(() => instance.stop(), (Number(options.duration ?? 60) + 20) * 1000);
  try {
    return await instance;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Person and voter lookups (issue 39) against the benchmark voter file (1M synthetic voters, the
 * import benchmark's): the api process (ROLES=api) loads the voter index itself. Registration
 * check p99 and lookups/s with 50 concurrent clients, with the CPU time per check of the api's
 * threads and of the load generator beside it; data-enhance by voterbase id p99 (one
 * client); phone search of 500 phones (one client, sequential); the api's RSS per voter.
 * The registration check runs twice: as fast as 50 clients are answered (the capacity), and at the
 * issue's 2,000 lookups/s from 50 clients (its p99 there). LOOKUPS_VOTERS=10000000 generates and
 * imports a voter file of that size for it (the 10M) instead of the shared 1M one; with
 * LOOKUPS_DATA_DIR and LOOKUPS_VOTER_CSV it uses a file imported before (kept); LOOKUPS_SWAP=0
 * leaves out the publish under load (which imports the file again); LOOKUPS_SWAP=kept publishes
 * the kept folder's newest version but the current one instead of importing one (runs that
 * compare code then swap between two versions imported once, minutes less a run).
 */
export async function lookupsBenchmark(
  recorder: Recorder,
  options: BenchOptions,
  fixture: VoterFixture,
): Promise<void> {
  const size = process.env['LOOKUPS_VOTERS'];
  const kept = keptVoterFile();
  const own = size === undefined || kept !== null ? null : await ownVoterFile(Number(size));
  try {
    await measureLookups(
      recorder,
      options,
      kept ??
        own ?? {
          dataDir: await fixture.importedDataDir(),
          voterCsv: fixture.voterCsv,
          rows: fixture.generation?.rows ?? 1_000_000,
        },
    );
  } finally {
    await own?.remove();
  }
}

/**
 * A voter file imported before and kept (LOOKUPS_DATA_DIR, its CSV LOOKUPS_VOTER_CSV): runs that
 * compare versions of the code skip the generation and the import (minutes at 10M voters).
 */
function keptVoterFile(): { dataDir: string; voterCsv: string; rows: number } | null {
  const dataDir = process.env['LOOKUPS_DATA_DIR'];
  const voterCsv = process.env['LOOKUPS_VOTER_CSV'];
  if (dataDir === undefined && voterCsv === undefined) return null;
  const rows = Number(process.env['LOOKUPS_VOTERS']);
  if (dataDir === undefined || voterCsv === undefined || !Number.isInteger(rows) || rows < 1000)
    throw new Error('LOOKUPS_DATA_DIR and LOOKUPS_VOTER_CSV go together, with LOOKUPS_VOTERS (its rows)');
  return { dataDir, voterCsv, rows };
}

/** A voter file of `rows` generated and imported in a folder of its own. */
async function ownVoterFile(
  rows: number,
): Promise<{ dataDir: string; voterCsv: string; rows: number; remove: () => Promise<void> }> {
  if (!Number.isInteger(rows) || rows < 1000)
    throw new Error('LOOKUPS_VOTERS: a number of voters, at least 1000');
  const dir = await tempDir('lookups');
  const voterCsv = join(dir.path, 'voters.csv');
  const dataDir = join(dir.path, 'data');
  const timeoutMs = 60 * 60_000;
  log(`lookups: listmatch generate voters --rows ${rows}`);
  await runCli(['generate', 'voters', '--rows', String(rows), '--seed', '3', '--out', voterCsv], {
    dataDir,
    timeoutMs,
  });
  log('lookups: listmatch voters import');
  await runCli(['voters', 'import', voterCsv, '--json'], { dataDir, timeoutMs });
  return { dataDir, voterCsv, rows, remove: dir.remove };
}

async function measureLookups(
  recorder: Recorder,
  options: BenchOptions,
  file: { dataDir: string; voterCsv: string; rows: number },
): Promise<void> {
  const { dataDir, rows } = file;
  const voters = await sampleVoters(file.voterCsv, rows);
  const { key, id } = await createApiKeyWithId(dataDir);
  await runCli(['keys', 'lookups', id, '--rights', 'all', '--daily-quota', '0'], {
    dataDir,
    timeoutMs: 30_000,
  });
  // LOOKUPS_SWAP=0: not the publish under load (it imports the file again).
  const swap = process.env['LOOKUPS_SWAP'];
  const next =
    swap === '0' ? null : swap === 'kept' ? await keptNextVersion(dataDir) : await importNextVersion(file);
  const service = await startService({
    dataDir,
    nodeArgs: options.profileArgs('lookups', 'server'),
    env: { LOOKUP_RATE_PER_SECOND: '100000', LOOKUP_REFRESH_SECONDS: String(REFRESH_SECONDS) },
  });
  try {
    const headers = { 'x-api-key': key };
    const started = performance.now();
    // The first lookup loads the voter file (10M voters: 7-10 s; a version stored by the release
    // before has its postings laid out anew as well).
    const first: Record<string, unknown> = await getJson(
      `${service.url}/person/data-enhance?search_id=${voters[0]!['voterbase_id']}`,
      key,
      120_000,
    );
    if (first['match_found'] !== true) throw new Error(`data-enhance found nobody: ${JSON.stringify(first)}`);
    recorder.metric('first lookup (loads the voter index)', performance.now() - started, 'ms');
    const rss = procStatusBytes(service.pid) ?? 0;
    recorder.metric('api RSS per voter', rss / rows, 'B', {
      digits: 1,
      note: `RSS ${(rss / 2 ** 20).toFixed(0)} MiB with ${rows.toLocaleString('en-US')} voters loaded (target: ≤ 200 B per voter + 300 MB)`,
    });
    recorder.check(
      'api RSS ≤ 200 B per voter + 300 MB',
      `${(rss / 2 ** 20).toFixed(0)} MiB`,
      `≤ ${((200 * rows + 300e6) / 2 ** 20).toFixed(0)} MiB`,
      rss <= 200 * rows + 300e6,
    );

    const checks = voters.map(
      (v) =>
        `/voter/voter-registration-check?first_name=${encodeURIComponent(v['first_name']!)}&last_name=${encodeURIComponent(v['last_name']!)}&state=${v['state']}&zip_code=${v['zip']}&dob=${v['dob']!.slice(0, 4)}*`,
    );
    let confirmed = 0;
    for (const path of checks.slice(0, 200)) {
      const body: Record<string, unknown> = await getJson(`${service.url}${path}`, key);
      if (body['result'] === true) confirmed++;
    }
    recorder.metric(
      'registration checks confirmed (200 voters of the file, name + ZIP + birth year)',
      (confirmed / 200) * 100,
      '%',
    );
    log(`lookups: registration check, ${CONNECTIONS} connections, ${DURATION_SECONDS} s`);
    await load({
      url: service.url,
      headers,
      connections: 10,
      amount: 2000,
      requests: [rotating(checks)],
    } as autocannon.Options);
    const capacityCpu = cpuReading(service.pid);
    const result = await load({
      url: service.url,
      headers,
      connections: CONNECTIONS,
      duration: DURATION_SECONDS,
      requests: [rotating(checks)],
    });
    recordCpuPerCheck(recorder, '50 clients, as fast as answered', capacityCpu, service.pid, result['2xx']);
    recorder.metric('registration check lookups/s (50 clients)', result['2xx'] / result.duration, 'req/s', {
      target: { min: 2000 },
      note: `${result['2xx']} × 2xx, non-2xx ${result.non2xx}, errors ${result.errors}`,
    });
    recorder.metric('registration check p99 (50 clients, as fast as answered)', result.latency.p99, 'ms', {
      note: `p50 ${result.latency.p50} ms, p97.5 ${result.latency.p97_5} ms, max ${result.latency.max} ms; 50 requests always in flight: latency is 50 ÷ throughput`,
    });
    log(
      `lookups: registration check, ${CONNECTIONS} connections at ${TARGET_RATE} req/s, ${DURATION_SECONDS} s (open loop, then autocannon's pacing)`,
    );
    // The target's measure: requests at a steady 2,000 a second (open-loop.ts says why not
    // autocannon's overallRate, which is run after it for comparison).
    const steadyCpu = cpuReading(service.pid);
    const steady = await openLoop({
      url: service.url,
      paths: checks,
      headers,
      rate: TARGET_RATE,
      durationSeconds: DURATION_SECONDS,
      connections: CONNECTIONS,
    });
    recorder.metric(
      `registration check p99 at ${TARGET_RATE} lookups/s (steady arrivals)`,
      steady.p99,
      'ms',
      {
        digits: 1,
        target: { max: 10 },
        note: `p50 ${steady.p50.toFixed(1)} ms, max ${steady.max.toFixed(1)} ms; ${Math.round(steady.rate)} req/s answered, ${steady.failed} failed; open loop over at most ${CONNECTIONS} connections, latency from each request's scheduled time; the sender's own event-loop delay p99 ${steady.senderDelayP99.toFixed(1)} ms, max ${steady.senderDelayMax.toFixed(1)} ms`,
      },
    );
    recordCpuPerCheck(recorder, `steady arrivals at ${TARGET_RATE}/s`, steadyCpu, service.pid, steady.ok);
    const paced = await load({
      url: service.url,
      headers,
      connections: CONNECTIONS,
      duration: DURATION_SECONDS,
      overallRate: TARGET_RATE,
      requests: [rotating(checks)],
    });
    recorder.metric(
      `registration check p99, autocannon overallRate ${TARGET_RATE} (bursts each second; for comparison)`,
      paced.latency.p99,
      'ms',
      {
        note: `p50 ${paced.latency.p50} ms, p97.5 ${paced.latency.p97_5} ms, max ${paced.latency.max} ms; ${Math.round(paced['2xx'] / paced.duration)} req/s answered, non-2xx ${paced.non2xx}, errors ${paced.errors}`,
      },
    );
    recorder.check(
      'registration check responses',
      `non-2xx ${result.non2xx}, errors ${result.errors}`,
      'all 2xx',
      result.non2xx === 0 && result.errors === 0,
    );

    log('lookups: data-enhance by voterbase id, 1 client, 5 s');
    const ids = voters.map((v) => `/person/data-enhance?search_id=${v['voterbase_id']}`);
    const enhance = await load({
      url: service.url,
      headers,
      connections: 1,
      duration: 5,
      requests: [rotating(ids)],
    });
    recorder.metric('data-enhance by id p99 (1 client)', enhance.latency.p99, 'ms', {
      target: { max: 2 },
      note: `p50 ${enhance.latency.p50} ms; ${Math.round(enhance['2xx'] / enhance.duration)} req/s`,
    });

    log(`lookups: phone search of ${PHONES_PER_SEARCH} phones × ${PHONE_SEARCHES}`);
    const phones = voters
      .map((v) => v['wireless_phone'] || v['landline_phone'] || '')
      .filter((p) => p !== '');
    const times: number[] = [];
    let found = 0;
    for (let i = 0; i < PHONE_SEARCHES; i++) {
      const batch = Array.from(
        { length: PHONES_PER_SEARCH },
        (_, k) => phones[(i * PHONES_PER_SEARCH + k) % phones.length],
      );
      const at = performance.now();
      const body: Record<string, unknown> = await getJson(
        `${service.url}/person/phone-search?phones=${batch.join(',')}`,
        key,
      );
      times.push(performance.now() - at);
      found += (body['result'] as unknown[]).length;
    }
    times.sort((a, b) => a - b);
    recorder.metric(
      `phone search of ${PHONES_PER_SEARCH} phones (median)`,
      times[Math.floor(times.length / 2)]!,
      'ms',
      {
        target: { max: 50 },
        note: `max ${times.at(-1)!.toFixed(1)} ms; ${(found / PHONE_SEARCHES).toFixed(0)} records per search`,
      },
    );
    const swap = next === null ? null : await measureSwap(recorder, service.url, key, checks, file, next);
    recorder.raw['lookups'] = {
      registration: result.latency,
      enhance: enhance.latency,
      phoneMs: times,
      rssBytes: rss,
      swap,
    };
  } finally {
    await service.stop();
    await next?.scratch?.remove();
  }
}

/**
 * The version the swap publishes: the voter file imported again in a folder of its own (as a
 * worker imports it elsewhere), before the api starts. Imported while the api ran, on the same 2
 * cores and 24 GB, its 10 GB of memory and gigabytes of files pushed the api's mapped voter
 * files out of memory: for seconds after the import had ended the api answered at a p50 of 0.5
 * to 2 s, before any publish (a machine that fetches a published version does not import it).
 */
async function importNextVersion(file: {
  voterCsv: string;
}): Promise<{ scratch: { path: string; remove: () => Promise<void> }; version: string }> {
  const scratch = await tempDir('lookups-next');
  log('lookups: importing the voter file again (the version to publish)');
  await runCli(['voters', 'import', file.voterCsv, '--replace', '--json'], {
    dataDir: scratch.path,
    timeoutMs: 60 * 60_000,
  });
  const version = (await readFile(join(scratch.path, 'voters', 'CURRENT'), 'utf8')).trim();
  return { scratch, version };
}

/**
 * LOOKUPS_SWAP=kept: the version to publish is one the kept folder holds already, the newest that
 * is not current (a version is a folder named by its import time: they sort oldest first).
 */
async function keptNextVersion(
  dataDir: string,
): Promise<{ scratch?: { path: string; remove: () => Promise<void> }; version: string }> {
  const votersDir = join(dataDir, 'voters');
  const current = (await readFile(join(votersDir, 'CURRENT'), 'utf8')).trim();
  const entries = await readdir(votersDir, { withFileTypes: true });
  const versions = entries
    .filter((entry) => entry.isDirectory() && isVoterVersion(entry.name) && entry.name !== current)
    .map((entry) => entry.name)
    .sort();
  const version = versions.at(-1);
  if (version === undefined)
    throw new Error(`LOOKUPS_SWAP=kept: ${votersDir} holds no version but the current one`);
  return { version };
}

/** The api's threads' CPU time and this process's (the load generator's), read together. */
function cpuReading(pid: number): {
  threads: Map<string, number> | null;
  sender: NodeJS.CpuUsage;
  kdamond: number | null;
  at: number;
} {
  return {
    threads: threadCpuMs(pid),
    sender: process.cpuUsage(),
    kdamond: namedProcessesCpuMs('kdamond'),
    at: performance.now(),
  };
}

/**
 * CPU time per registration check over a load, by the api's threads (its HTTP thread, the worker
 * threads: the lookup threads and the file reader, V8's helper threads) and the load
 * generator's (this process, on the same machine): on 2 cores their sum is what caps the rate.
 */
function recordCpuPerCheck(
  recorder: Recorder,
  load: string,
  before: ReturnType<typeof cpuReading>,
  pid: number,
  checks: number,
): void {
  const after = cpuReading(pid);
  if (before.threads === null || after.threads === null || checks === 0) return;
  const perCheck = (ms: number) => (ms * 1000) / checks;
  const groups = new Map<string, number>();
  for (const [name, ms] of after.threads) {
    const group =
      name === 'MainThread'
        ? 'HTTP thread'
        : name === 'WorkerThread'
          ? 'worker threads'
          : /^v8|^V8/.test(name)
            ? 'V8 helpers'
            : 'other';
    groups.set(group, (groups.get(group) ?? 0) + ms - (before.threads.get(name) ?? 0));
  }
  let api = 0;
  for (const ms of groups.values()) api += ms;
  const sender = process.cpuUsage(before.sender);
  const parts = [...groups]
    .filter(([, ms]) => perCheck(ms) >= 0.5)
    .map(([group, ms]) => `${group} ${perCheck(ms).toFixed(0)} µs`)
    .join(', ');
  // The kernel's memory access monitor, where the machine runs one: on this project's 2-core VMs
  // it takes a core for 5-13 ms every half second beside a 10M-voter api (its stall sets the p99).
  const kdamond =
    before.kdamond === null || after.kdamond === null || after.kdamond === 0
      ? ''
      : `; the kernel's kdamond ${(after.kdamond - before.kdamond).toFixed(0)} ms in ${((after.at - before.at) / 1000).toFixed(1)} s`;
  recorder.metric(`registration check: the api's CPU per check (${load})`, perCheck(api), 'µs', {
    note: `${parts}; the load generator ${perCheck((sender.user + sender.system) / 1000).toFixed(0)} µs${kdamond} (/proc/<pid>/task/<tid>/stat, 10 ms ticks)`,
  });
}

/** Latency of the responses that ended within [from, to] (ms since the epoch). */
const windowLatency = (responses: { at: number; ms: number }[], from: number, to: number) =>
  latencyOf(responses.filter((r) => r.at >= from && r.at <= to).map((r) => r.ms));

/** The versions the api's lookups have switched to, from /metrics. */
async function lookupSwaps(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
  const line = text.split('\n').find((l) => l.startsWith('listmatch_lookup_voter_file_swaps_total '));
  return Number(line?.split(' ')[1] ?? Number.NaN);
}

/**
 * Publishing a new voter file under load (issue 39): the voter file imported again in a
 * folder of its own before the api started (importNextVersion), its version moved beside the
 * api's, then published (`makeCurrent`, what a machine that fetched a version does) while the
 * registration checks arrive at a steady TARGET_RATE over 50 connections (openLoop); the api
 * loads the new version beside the one in use and swaps. Every request must be answered (0
 * failed); the p99 is the swap window's: from the publish to AFTER_SWAP_MS after the api switched to
 * the new version.
 */
async function measureSwap(
  recorder: Recorder,
  url: string,
  key: string,
  checks: string[],
  file: { dataDir: string; voterCsv: string },
  next: { scratch?: { path: string }; version: string },
): Promise<Record<string, unknown>> {
  const { version } = next;
  const votersDir = join(file.dataDir, 'voters');
  if (next.scratch !== undefined)
    await rename(join(next.scratch.path, 'voters', version), join(votersDir, version));
  const store = localVoterStore(loadConfig({ DATA_DIR: file.dataDir }), file.dataDir);

  const swapsBefore = await lookupSwaps(url);
  const stop = new AbortController();
  log(`lookups: registration check at ${SWAP_RATE} req/s while a new voter file is published`);
  const running = openLoop({
    url,
    paths: checks,
    headers: { 'x-api-key': key },
    rate: SWAP_RATE,
    durationSeconds: 3600,
    connections: CONNECTIONS,
    signal: stop.signal,
  });
  await new Promise((resolve) => setTimeout(resolve, 5000));
  const published = Date.now();
  await store.makeCurrent(version);
  let swapped = Number.NaN;
  const deadline = published + (REFRESH_SECONDS + 120) * 1000;
  while (Date.now() < deadline) {
    if ((await lookupSwaps(url)) > swapsBefore) {
      swapped = Date.now();
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await new Promise((resolve) => setTimeout(resolve, AFTER_SWAP_MS));
  stop.abort();
  const result = await running;
  const { responses, failed } = result;
  // The first second of the load (connections opening) is left out of "before".
  const before = windowLatency(responses, (responses[0]?.at ?? 0) + 1000, published);
  const window = windowLatency(
    responses,
    published,
    (Number.isNaN(swapped) ? published : swapped) + AFTER_SWAP_MS,
  );
  recorder.metric(
    `registration check p99 while a new voter file is swapped in (${SWAP_RATE} req/s)`,
    window.p99,
    'ms',
    {
      target: { max: 50 },
      note: `${window.count} responses from the publish to ${AFTER_SWAP_MS / 1000} s after the api switched to the new version (${((swapped - published) / 1000).toFixed(1)} s after the publish: it looks every ${REFRESH_SECONDS} s, then loads the version): p50 ${window.p50.toFixed(1)} ms, max ${window.max.toFixed(1)} ms; before the publish p50 ${before.p50.toFixed(1)} ms, p99 ${before.p99.toFixed(1)} ms; the sender's own event-loop delay max ${result.senderDelayMax.toFixed(1)} ms`,
    },
  );
  // Second by second from 3 s before the publish (where in the swap the slow answers fall).
  const seconds: string[] = [];
  const last = Number.isNaN(swapped) ? published : swapped + AFTER_SWAP_MS;
  for (let from = published - 3000; from < last; from += 1000) {
    const second = windowLatency(responses, from, from + 1000);
    if (second.count > 0)
      seconds.push(
        `${Math.round((from - published) / 1000)}s p50 ${second.p50.toFixed(0)} max ${second.max.toFixed(0)}`,
      );
  }
  log(
    `lookups: during the swap (seconds from the publish; swapped at ${((swapped - published) / 1000).toFixed(1)} s): ${seconds.join(', ')}`,
  );
  recorder.check(
    'requests failed while a new voter file was published',
    `${failed} of ${result.sent}`,
    '0, and the new version in use',
    failed === 0 && !Number.isNaN(swapped),
  );
  return {
    before,
    window,
    failed,
    requests: result.sent,
    swapAfterMs: swapped - published,
    seconds,
  };
}
