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
 * starts once the voter file is loaded).
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
    const inner = /\(([\d.]+) rows\/s\)/.exec(run.stderr);
    const rss = /maxrss-kb=(\d+)/.exec(run.stderr);
    results.push({
      threads,
      rowsPerSecond: Number(inner?.[1] ?? Number.NaN),
      wallMs: run.ms,
      rssMb: rss === null ? null : Number(rss[1]) / 1024,
      digest: createHash('sha256').update(readFileSync(out)).digest('hex'),
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
}
