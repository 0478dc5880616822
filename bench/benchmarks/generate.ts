import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { runCli, tempDir } from '../lib/processes.ts';
import { formatNumber, type Recorder } from '../lib/report.ts';
import type { BenchOptions } from './options.ts';

const VOTER_ROWS = 1_000_000;
const LIST_ROWS = 100_000;
const TIMEOUT_MS = 9 * 60_000;

/**
 * Synthetic data generation as an operator runs it: `listmatch generate voters` (1M rows, target
 * ≥ 200,000 rows/s from spawn to exit) and `listmatch generate list --pattern mixed` (100k rows
 * from that file; reported, no target).
 */
export async function generateBenchmark(recorder: Recorder, options: BenchOptions): Promise<void> {
  const dir = await tempDir('generate');
  try {
    const voters = join(dir.path, 'voters.csv');
    const runs: number[] = [];
    for (let run = 1; run <= options.runs; run++) {
      const result = await runCli(
        ['generate', 'voters', '--rows', String(VOTER_ROWS), '--seed', '1', '--out', voters],
        {
          dataDir: dir.path,
          timeoutMs: TIMEOUT_MS,
          nodeArgs: options.profileArgs('generate', 'voters'),
        },
      );
      runs.push(VOTER_ROWS / (result.ms / 1000));
    }
    const sorted = [...runs].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    const bytes = (await stat(voters)).size;
    recorder.metric(
      `generate voters, 1M rows (CLI, spawn to exit; median of ${runs.length})`,
      median,
      'rows/s',
      {
        target: { min: 200_000 },
        note: `${formatNumber(bytes / 1e6, 1)} MB file; runs ${runs.map((r) => formatNumber(r)).join(', ')} rows/s`,
      },
    );
    const list = await runCli(
      [
        'generate',
        'list',
        '--from',
        voters,
        '--rows',
        String(LIST_ROWS),
        '--match-rate',
        '0.7',
        '--pattern',
        'mixed',
        '--seed',
        '1',
        '--out',
        join(dir.path, 'list.csv'),
        '--truth',
        join(dir.path, 'truth.csv'),
      ],
      { dataDir: dir.path, timeoutMs: TIMEOUT_MS, nodeArgs: options.profileArgs('generate', 'list') },
    );
    recorder.metric(
      'generate list, 100k rows, pattern mixed, from the 1M-row file (CLI, spawn to exit)',
      LIST_ROWS / (list.ms / 1000),
      'rows/s',
      {
        note: `${(list.ms / 1000).toFixed(1)} s including one pass over the voter file`,
      },
    );
    recorder.raw['generate'] = { voterRuns: runs, voterBytes: bytes, listMs: list.ms };
  } finally {
    await dir.remove();
  }
}
