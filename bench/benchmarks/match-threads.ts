import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { log, runCli } from '../lib/processes.ts';
import { formatNumber, type Recorder } from '../lib/report.ts';
import { makeList } from './matching.ts';
import type { BenchOptions } from './options.ts';
import type { VoterFixture } from './voters.ts';

const CLI_TIMEOUT_MS = 20 * 60_000;
const TIME = '/usr/bin/time';

/**
 * `listmatch match` of a 100k-row mixed list against the 1M-voter fixture on 1, 2, 4, 8 and 16
 * matching threads (as many as the machine has cores): rows per second, the speed-up over one
 * thread, peak resident memory of the process, and that every thread count wrote the same bytes.
 * Each run is the CLI from spawn to exit, as an operator runs it (its own timer, in the output,
 * starts once the voter file is loaded). Then the same list against the voters imported as shards
 * by state (shardedComparison).
 */
export async function matchThreadsBenchmark(
  recorder: Recorder,
  options: BenchOptions,
  fixture: VoterFixture,
): Promise<void> {
  const dataDir = await fixture.importedDataDir();
  const { list } = await makeList(fixture.root, fixture.voterCsv, 100_000);
  const counts = [1, 2, 4, 8, 16].filter((n) => n <= availableParallelism());
  const measuresRss = existsSync(TIME) && spawnSync(TIME, ['-f', '%M', 'true']).status === 0;
  const results: {
    threads: number;
    rowsPerSecond: number;
    wallMs: number;
    rssMb: number | null;
    digest: string;
  }[] = [];
  for (const threads of counts) {
    const out = join(fixture.root, `threads-${threads}.csv`);
    log(`match-threads: listmatch match on ${threads} thread(s)`);
    const run = await runCli(['match', list, '--out', out], {
      dataDir,
      timeoutMs: CLI_TIMEOUT_MS,
      nodeArgs: options.profileArgs('match-threads', 'cli'),
      env: { MATCH_THREADS: String(threads) },
      ...(measuresRss ? { wrapper: [TIME, '-f', 'maxrss-kb=%M'] } : {}),
    });
    const rss = /maxrss-kb=(\d+)/.exec(run.stderr);
    results.push({
      threads,
      rowsPerSecond: cliRowsPerSecond(run.stderr),
      wallMs: run.ms,
      rssMb: rss === null ? null : Number(rss[1]) / 1024,
      digest: digestOf(out),
    });
  }
  const one = results[0]!;
  for (const r of results) {
    recorder.metric(
      `match, 1M voters, 100k mixed list, ${r.threads} thread(s): rows/s (CLI's own timer)`,
      r.rowsPerSecond,
      'rows/s',
      {
        note: `spawn to exit ${formatNumber(r.wallMs / 1000, 2)} s; speed-up ${formatNumber(r.rowsPerSecond / one.rowsPerSecond, 2)}×${r.rssMb === null ? '' : `; peak RSS ${formatNumber(r.rssMb)} MB`}`,
      },
    );
  }
  const eight = results.find((r) => r.threads === 8);
  if (eight !== undefined) {
    recorder.metric('match: speed-up from 1 to 8 threads', eight.rowsPerSecond / one.rowsPerSecond, '×', {
      digits: 2,
      target: { min: 6 },
    });
  }
  recorder.check(
    'match: the same bytes on every thread count',
    results.map((r) => `${r.threads}:${r.digest.slice(0, 12)}`).join(' '),
    'one digest',
    new Set(results.map((r) => r.digest)).size === 1,
  );
  recorder.raw['threads'] = results;
  await shardedComparison(recorder, fixture, list, results);
}

/** One shard per state: every state of the generated file is well under this. */
const SHARD_MAX_ROWS = '10000000';

/**
 * The same list against the same voters imported as shards by state (VOTER_SHARD_MAX_ROWS),
 * `listmatch match` on 2 and 8 threads and on the most threads of the table: rows/s, the ratio to the
 * unsharded file on as many threads (issue 17: one worker sharded vs unsharded), and that both
 * thread counts wrote the same bytes.
 */
async function shardedComparison(
  recorder: Recorder,
  fixture: VoterFixture,
  list: string,
  unsharded: readonly { threads: number; rowsPerSecond: number }[],
): Promise<void> {
  const dataDir = join(fixture.root, 'data-sharded');
  const env = { VOTER_SHARD_MAX_ROWS: SHARD_MAX_ROWS };
  log('match-threads: importing the voters as shards by state');
  const imported = await runCli(['voters', 'import', fixture.voterCsv, '--replace'], {
    dataDir,
    timeoutMs: CLI_TIMEOUT_MS,
    env,
  });
  recorder.metric('import 1M voters as shards by state (spawn to exit)', imported.ms / 1000, 's', {
    digits: 1,
  });
  const most = unsharded.at(-1)!.threads;
  const counts = [...new Set([2, 8, most])].filter((n) => n >= 2 && n <= most);
  const digests: string[] = [];
  for (const threads of counts) {
    const out = join(fixture.root, `sharded-${threads}.csv`);
    log(`match-threads: listmatch match on the sharded file, ${threads} thread(s)`);
    const run = await runCli(['match', list, '--out', out], {
      dataDir,
      timeoutMs: CLI_TIMEOUT_MS,
      env: { ...env, MATCH_THREADS: String(threads) },
    });
    const rowsPerSecond = cliRowsPerSecond(run.stderr);
    const plain = unsharded.find((r) => r.threads === threads)?.rowsPerSecond ?? Number.NaN;
    recorder.metric(
      `match, 1M voters as shards by state, 100k mixed list, ${threads} thread(s): rows/s (CLI's own timer)`,
      rowsPerSecond,
      'rows/s',
      { note: `${formatNumber(rowsPerSecond / plain, 2)}× the unsharded file on as many threads` },
    );
    digests.push(digestOf(out));
  }
  recorder.check(
    'match, sharded: the same bytes on every thread count',
    digests.map((d, i) => `${counts[i]}:${d.slice(0, 12)}`).join(' '),
    'one digest',
    new Set(digests).size === 1,
  );
}

/** The rows per second `listmatch match` printed (its own timer), NaN when it printed none. */
const cliRowsPerSecond = (stderr: string) => Number(/\(([\d.]+) rows\/s\)/.exec(stderr)?.[1] ?? Number.NaN);

const digestOf = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
