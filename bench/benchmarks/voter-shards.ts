/**
 * `shards` (issue 7, item 4): a voter file matched as shards by state, on one PostgreSQL database
 * and one S3 bucket (throwaway), each process a real `src/start/main.ts`:
 *
 * - the same lists matched by 1 worker holding the whole file unsharded, by 1 worker holding every
 *   shard (it matches each list in one pass), and by 1 and by 2 workers each given memory for half
 *   the shards (VOTER_CACHE_MB: they split lists into chunks per shard): throughput, peak resident
 *   memory per worker, shards loaded; the first two once more at the end (the file imported again
 *   each way), their ratio from both runs;
 * - the results of every way byte-identical: unsharded, every shard held, chunks on 1 and on 2
 *   workers, and the embedded one (`listmatch match` on a sharded DATA_DIR); precision and recall.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { rankOneQuality } from '../../test/support/match-quality.ts';
import { createTestDatabase, type TestDatabase } from '../../test/support/postgres.ts';
import { createTestBucket, TEST_S3, type TestBucket } from '../../test/support/s3-server.ts';
import {
  createApiKey,
  log,
  matchListOnce,
  runCli,
  type ServiceProcess,
  sampleRss,
  startService,
  tempDir,
} from '../lib/processes.ts';
import { formatNumber, type Recorder } from '../lib/report.ts';
import type { BenchOptions } from './options.ts';
import { busyShare, cpuTimes } from './scale-out.ts';

const VOTERS = 1_000_000;
const STATES = 'NC,OH,GA,PA';
/** Above each state's ~250,000 voters: one shard per state. */
const SHARD_MAX_ROWS = '300000';
/** The issue's list: 50k mixed rows (issue 37). */
const LIST_ROWS = 50_000;
const JOBS = 6;
const TIMEOUT_MS = 30 * 60_000;
const SECRET = 'bench-voter-shards-signing-secret-0123456789';

interface Run {
  rowsPerSecond: number;
  cpuBusy: number | null;
  peakRssBytes: number[];
  shardLoads: number[];
  /** Seconds the workers spent on each kind of step (the shards' queues together), summed over them. */
  stepSeconds: Record<string, number>;
  /** The first list's result, as downloaded. */
  result: Buffer;
}

export async function voterShardsBenchmark(recorder: Recorder, _options: BenchOptions): Promise<void> {
  let database: TestDatabase | undefined;
  let bucket: TestBucket | undefined;
  const dir = await tempDir('voter-shards');
  let api: ServiceProcess | undefined;
  try {
    database = await createTestDatabase();
    bucket = await createTestBucket();
    const env: Record<string, string> = {
      DATABASE_URL: database.url,
      S3_ENDPOINT: TEST_S3.endpoint,
      S3_BUCKET: bucket.name,
      S3_REGION: TEST_S3.region,
      S3_ACCESS_KEY_ID: TEST_S3.accessKeyId,
      S3_SECRET_ACCESS_KEY: TEST_S3.secretAccessKey,
      URL_SIGNING_SECRET: SECRET,
      RATE_LIMIT_POLL_SECONDS: '0',
      // One matching thread per worker process: a worker is sized to one core here (2 cores).
      MATCH_THREADS: '1',
    };
    const voters = join(dir.path, 'voters.csv');
    const listPath = join(dir.path, 'list.csv');
    const truthPath = join(dir.path, 'truth.csv');
    log(
      `shards: generating ${formatNumber(VOTERS)} voters in ${STATES} and a ${formatNumber(LIST_ROWS)}-row list`,
    );
    await runCli(
      ['generate', 'voters', '--rows', String(VOTERS), '--states', STATES, '--seed', '11', '--out', voters],
      {
        dataDir: dir.path,
        timeoutMs: TIMEOUT_MS,
      },
    );
    await runCli(
      [
        ...['generate', 'list', '--from', voters, '--rows', String(LIST_ROWS), '--match-rate', '0.7'],
        ...['--pattern', 'mixed', '--seed', '12', '--out', listPath, '--truth', truthPath],
      ],
      { dataDir: dir.path, timeoutMs: TIMEOUT_MS },
    );
    const list = await readFile(listPath);
    api = await startService({ dataDir: join(dir.path, 'api'), env });
    const key = await createApiKey(join(dir.path, 'api'), env);

    const run = async (label: string, workerEnvs: Record<string, string>[]): Promise<Run> => {
      const workers: ServiceProcess[] = [];
      for (const [n, extra] of workerEnvs.entries()) {
        workers.push(
          await startService({
            dataDir: join(dir.path, `${label}-worker-${n}`),
            env: { ...env, ...extra, ROLES: 'worker' },
          }),
        );
      }
      try {
        // Not measured: each fresh worker loads what its first jobs need, starts its matching
        // threads and compiles its code on a whole list (a list of a few thousand rows left the
        // first measured lists of the one pass 15% slower than the later ones).
        await Promise.all(
          workers.map((_, n) =>
            matchListOnce(api!.url, key, `${label}_warmup_${n}`, list, { timeoutMs: TIMEOUT_MS }),
          ),
        );
        log(
          `shards: ${label}, ${JOBS} lists of ${formatNumber(LIST_ROWS)} rows, ${workers.length} worker(s)`,
        );
        const rss = workers.map((worker) => sampleRss(worker.pid));
        const cpuBefore = cpuTimes();
        const started = Date.now();
        const results = await Promise.all(
          Array.from({ length: JOBS }, (_, i) =>
            matchListOnce(api!.url, key, `${label}_${i}`, list, { timeoutMs: TIMEOUT_MS }),
          ),
        );
        const seconds = (Date.now() - started) / 1000;
        const cpuBusy = busyShare(cpuBefore, cpuTimes());
        const peakRssBytes = rss.map((sampler) => Math.max(...sampler.stop().map((s) => s.bytes)));
        const shardLoads = await Promise.all(workers.map((worker) => loadsOf(worker)));
        const stepSeconds = addSeconds(await Promise.all(workers.map((worker) => stepSecondsOf(worker))));
        return {
          rowsPerSecond: (JOBS * LIST_ROWS) / seconds,
          cpuBusy,
          peakRssBytes,
          shardLoads,
          stepSeconds,
          result: results[0]!,
        };
      } finally {
        await Promise.all(workers.map((worker) => worker.stop()));
      }
    };

    /** Seconds of each import (the CLI's, into the bucket), whole and as shards, in the order run. */
    const importSeconds = { whole: [] as number[], sharded: [] as number[] };
    const importWhole = async () => {
      log('shards: importing the voter file unsharded');
      const started = Date.now();
      await runCli(['voters', 'import', voters, '--replace', '--json'], {
        dataDir: join(dir.path, 'importer'),
        timeoutMs: TIMEOUT_MS,
        env,
      });
      importSeconds.whole.push((Date.now() - started) / 1000);
    };
    const importShards = async () => {
      log('shards: importing the voter file as shards by state');
      const started = Date.now();
      const imported = await runCli(['voters', 'import', voters, '--replace', '--json'], {
        dataDir: join(dir.path, 'importer'),
        timeoutMs: TIMEOUT_MS,
        env: { ...env, VOTER_SHARD_MAX_ROWS: SHARD_MAX_ROWS },
      });
      importSeconds.sharded.push((Date.now() - started) / 1000);
      return (JSON.parse(imported.stdout) as { version: string }).version;
    };
    await importWhole();
    const plain = await run('unsharded', [{}]);
    const version = await importShards();
    const meta = JSON.parse(
      await readFile(join(dir.path, 'importer', 'voters', version, 'meta.json'), 'utf8'),
    ) as {
      shards: { shards: { id: string; rows: number; memoryBytes: number }[] };
    };
    const shards = meta.shards.shards;
    const half = Math.ceil(shards.length / 2);
    const biggest = Math.max(...shards.map((shard) => shard.memoryBytes));
    const cacheMb = String(Math.ceil((biggest * half) / (1024 * 1024)));
    // Workers of a sharded file are given VOTER_SHARD_MAX_ROWS, as the README asks: without it a
    // worker keeps two voter files open on its threads, never holds every shard, and splits
    // every list into chunks.
    const sharded = { VOTER_SHARD_MAX_ROWS: SHARD_MAX_ROWS };
    const halfCache = { ...sharded, VOTER_CACHE_MB: cacheMb };
    const oneSharded = await run('sharded-1', [sharded]);
    const oneHalf = await run('sharded-1-half', [halfCache]);
    const twoSharded = await run('sharded-2', [halfCache, halfCache]);
    // The one-worker comparison once more, the other way round (unsharded, then sharded again):
    // this VM's speed drifts by tens of percent within minutes, and the two runs of each way
    // taken together fall on either side of the drift.
    await importWhole();
    const plainAgain = await run('unsharded-again', [{}]);
    await importShards();
    const oneShardedAgain = await run('sharded-1-again', [sharded]);
    const pairRatio =
      (oneSharded.rowsPerSecond + oneShardedAgain.rowsPerSecond) /
      (plain.rowsPerSecond + plainAgain.rowsPerSecond);

    // The embedded reference on the same sharded file: the cluster must give these very bytes.
    const embedded = join(dir.path, 'embedded');
    await runCli(['voters', 'import', voters, '--replace'], {
      dataDir: embedded,
      timeoutMs: TIMEOUT_MS,
      env: { VOTER_SHARD_MAX_ROWS: SHARD_MAX_ROWS },
    });
    const reference = join(dir.path, 'reference.csv');
    await runCli(['match', listPath, '--out', reference], {
      dataDir: embedded,
      timeoutMs: TIMEOUT_MS,
      env: { VOTER_SHARD_MAX_ROWS: SHARD_MAX_ROWS, MATCH_THREADS: '1' },
    });
    const identical =
      (await readFile(reference)).equals(twoSharded.result) &&
      plain.result.equals(oneSharded.result) &&
      plainAgain.result.equals(plain.result) &&
      oneShardedAgain.result.equals(oneSharded.result) &&
      twoSharded.result.equals(oneSharded.result) &&
      oneHalf.result.equals(oneSharded.result);
    recorder.check(
      'sharded results byte-identical to the unsharded and the embedded ones',
      identical ? 'identical' : 'different',
      'identical',
      identical,
      '1 worker unsharded, 1 worker in one pass, 1 and 2 workers in chunks on the cluster, `listmatch match` on an embedded sharded DATA_DIR',
    );

    const mb = (bytes: number) => `${formatNumber(bytes / (1024 * 1024))} MB`;
    const busy = (share: number | null) =>
      share === null ? '' : `; machine CPU ${Math.round(share * 100)}% busy`;
    const describe = (r: Run) =>
      `peak RSS ${r.peakRssBytes.map(mb).join(' and ')}; shard loads ${r.shardLoads.join(' and ')}${busy(r.cpuBusy)}; ${steps(r)}`;
    /** The workers' seconds per kind of step (the warm-up list's included), the longest first. */
    const steps = (r: Run) =>
      `worker seconds by step: ${Object.entries(r.stepSeconds)
        .sort((a, b) => b[1] - a[1])
        .map(([step, seconds]) => `${step} ${seconds.toFixed(1)}`)
        .join(', ')}`;
    recorder.metric('throughput, 1 worker, unsharded', plain.rowsPerSecond, 'rows/s', {
      note: `${JOBS} × ${formatNumber(LIST_ROWS)}-row mixed lists, ${formatNumber(VOTERS)} voters (${STATES}); ${describe(plain)}`,
    });
    recorder.metric('throughput, 1 worker, sharded, every shard held', oneSharded.rowsPerSecond, 'rows/s', {
      note: `one pass per list; ${shards.length} shards (${shards.map((s) => `${s.id} ${formatNumber(s.rows)}`).join(', ')}); ${describe(oneSharded)}`,
    });
    recorder.metric('ratio, 1 sharded worker (every shard) / 1 unsharded', pairRatio, '×', {
      digits: 2,
      note:
        `the same lists and file, measured twice each way (unsharded, sharded, …, unsharded, sharded): ` +
        `${formatNumber(oneSharded.rowsPerSecond)} + ${formatNumber(oneShardedAgain.rowsPerSecond)} rows/s sharded ÷ ` +
        `${formatNumber(plain.rowsPerSecond)} + ${formatNumber(plainAgain.rowsPerSecond)} unsharded`,
    });
    const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
    const seconds = (values: number[]) => values.map((v) => `${formatNumber(v, 1)} s`).join(' + ');
    recorder.metric(
      'ratio, sharded import / unsharded import (time)',
      sum(importSeconds.sharded) / sum(importSeconds.whole),
      '×',
      {
        digits: 2,
        note: `the same file imported twice each way, alternately (\`listmatch voters import --replace\`, into the bucket): ${seconds(importSeconds.sharded)} as ${shards.length} shards ÷ ${seconds(importSeconds.whole)} whole`,
      },
    );
    recorder.metric('throughput, 1 worker, sharded, half the shards', oneHalf.rowsPerSecond, 'rows/s', {
      note: `lists split into chunks; VOTER_CACHE_MB=${cacheMb}; ${describe(oneHalf)}`,
    });
    recorder.metric(
      'throughput, 2 workers, sharded, half the shards each',
      twoSharded.rowsPerSecond,
      'rows/s',
      {
        note: `VOTER_CACHE_MB=${cacheMb}; ${describe(twoSharded)}`,
      },
    );
    recorder.metric(
      'ratio, 2 sharded workers / 1 sharded worker, half the shards each',
      twoSharded.rowsPerSecond / oneHalf.rowsPerSecond,
      '×',
      { digits: 2, note: 'the same lists; 2 cores shared with the api process, PostgreSQL and Swift' },
    );
    recorder.metric(
      'ratio, 2 sharded workers / 1 unsharded',
      twoSharded.rowsPerSecond / plain.rowsPerSecond,
      '×',
      {
        digits: 2,
        note: 'the same lists; 2 cores shared with the api process, PostgreSQL and Swift',
      },
    );
    const truth = await readFile(truthPath, 'utf8');
    const [a, b] = [
      rankOneQuality(plain.result.toString('utf8'), truth),
      rankOneQuality(twoSharded.result.toString('utf8'), truth),
    ];
    recorder.metric('precision, sharded (unsharded)', b.precision, '', {
      digits: 4,
      note: `unsharded ${formatNumber(a.precision, 4)}; rank 1 of the first list against its truth`,
    });
    recorder.metric('recall, sharded (unsharded)', b.recall, '', {
      digits: 4,
      note: `unsharded ${formatNumber(a.recall, 4)}`,
    });
    recorder.raw['voterShards'] = {
      shards,
      figures: {
        plain: { ...plain, result: undefined },
        oneSharded: { ...oneSharded, result: undefined },
        plainAgain: { ...plainAgain, result: undefined },
        oneShardedAgain: { ...oneShardedAgain, result: undefined },
        oneHalf: { ...oneHalf, result: undefined },
        twoSharded: { ...twoSharded, result: undefined },
        quality: { unsharded: a, sharded: b },
      },
    };
  } finally {
    await api?.stop();
    await database?.drop().catch(() => {});
    await bucket?.drop().catch(() => {});
    await dir.remove();
  }
}

/**
 * Seconds a worker spent on each kind of step (listmatch_stage_duration_seconds): a queue of a
 * shard counts with the others of its kind (`match-chunk.nc` as `match-chunk`), a chunk's place
 * and evidence steps apart from its match step (`match-chunk/place`).
 */
async function stepSecondsOf(worker: ServiceProcess): Promise<Record<string, number>> {
  const text = await (await fetch(`${worker.url}/metrics`)).text();
  const seconds: Record<string, number> = {};
  for (const [, labels, value] of text.matchAll(
    /^listmatch_stage_duration_seconds_sum\{([^}]*)\} (\S+)$/gm,
  )) {
    const label = (name: string) => new RegExp(`${name}="([^"]*)"`).exec(labels!)?.[1] ?? '';
    const kind = label('queue').split('.')[0] + (label('step') === '' ? '' : `/${label('step')}`);
    seconds[kind] = (seconds[kind] ?? 0) + Number(value);
  }
  return seconds;
}

function addSeconds(parts: readonly Record<string, number>[]): Record<string, number> {
  const total: Record<string, number> = {};
  for (const part of parts)
    for (const [kind, value] of Object.entries(part)) total[kind] = (total[kind] ?? 0) + value;
  return total;
}

async function loadsOf(worker: ServiceProcess): Promise<number> {
  const text = await (await fetch(`${worker.url}/metrics`)).text();
  return Number(/listmatch_voter_snapshot_loads_total (\d+)/.exec(text)?.[1] ?? Number.NaN);
}
