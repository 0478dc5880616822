import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { log, ROOT, runCli, tempDir } from '../lib/processes.ts';
import { formatNumber, type Recorder } from '../lib/report.ts';
import type { BenchOptions } from './options.ts';
import type { VoterFixture } from './voters.ts';

const CLI_TIMEOUT_MS = 20 * 60_000;
const LIST_SEED = 7;

interface ChildResult {
  voters: number;
  threads: number;
  loadMs: number;
  rssBefore: number;
  rssLoaded: number;
  rssMatching: number;
  floor: { seconds: number; rows: number };
  first: { seconds: number; rows: number };
  second: { seconds: number; rows: number };
  precision: number | null;
  recall: number | null;
  buildSeconds: number | null;
  buildThreads: number;
}

/** A seeded `mixed` list (every input pattern, the documented error model) drawn from the voter CSV. */
export async function makeList(root: string, voterCsv: string, rows: number) {
  const list = join(root, `list-${rows}.csv`);
  const truth = join(root, `truth-${rows}.csv`);
  log(`match: listmatch generate list --rows ${formatNumber(rows)} --pattern mixed`);
  await runCli(
    [
      'generate',
      'list',
      '--from',
      voterCsv,
      '--rows',
      String(rows),
      '--match-rate',
      '0.7',
      '--pattern',
      'mixed',
      '--seed',
      String(LIST_SEED),
      '--out',
      list,
      '--truth',
      truth,
    ],
    { dataDir: root, timeoutMs: CLI_TIMEOUT_MS },
  );
  return { list, truth };
}

async function runChild(args: string[], nodeArgs: string[]): Promise<ChildResult> {
  const child = spawn(
    process.execPath,
    ['--expose-gc', ...nodeArgs, join('bench', 'benchmarks', 'match-child.ts'), ...args],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const out: string[] = [];
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => out.push(chunk));
  const [code] = (await once(child, 'close')) as [number | null];
  if (code !== 0) throw new Error(`match-child exited with code ${code}`);
  return JSON.parse(out.join('').trim().split('\n').at(-1)!) as ChildResult;
}

function record(recorder: Recorder, label: string, r: ChildResult, minRate: number | null): void {
  const rate = r.second.rows / r.second.seconds;
  recorder.metric(`match ${label}: list rows/s, end to end (parse → match → write), warm`, rate, 'rows/s', {
    ...(minRate === null ? {} : { target: { min: minRate } }),
    note:
      `${formatNumber(r.second.rows)}-row mixed list, ${r.threads} matching threads; ` +
      `first job of the process (starts threads, estimates u) ${formatNumber(r.first.rows / r.first.seconds)} rows/s`,
  });
  recorder.metric(`match ${label}: time ÷ parse-and-write floor`, r.second.seconds / r.floor.seconds, '×', {
    digits: 1,
    note: `floor ${formatNumber(r.floor.rows / r.floor.seconds)} rows/s (a matcher that matches nothing)`,
  });
  recorder.metric(
    `match ${label}: resident memory per voter (snapshot loaded)`,
    (r.rssLoaded - r.rssBefore) / r.voters,
    'bytes',
    {
      target: { max: 300 },
      note: `RSS +${formatNumber((r.rssLoaded - r.rssBefore) / 2 ** 20)} MiB for ${formatNumber(r.voters)} voters (loaded in ${formatNumber(r.loadMs / 1000, 1)} s); ${formatNumber(r.rssMatching / 2 ** 20)} MiB while matching`,
    },
  );
  recorder.check(
    `match ${label}: precision of the best matches`,
    (r.precision ?? 0).toFixed(4),
    '≥ 0.99',
    (r.precision ?? 0) >= 0.99,
    `recall ${(r.recall ?? 0).toFixed(4)}`,
  );
  recorder.raw[label] = r;
}

/** 1M voters (the shared fixture) and a 100k-row mixed list; also the in-thread index build rate. */
export async function matchBenchmark(
  recorder: Recorder,
  options: BenchOptions,
  fixture: VoterFixture,
): Promise<void> {
  const dataDir = await fixture.importedDataDir();
  const { list, truth } = await makeList(fixture.root, fixture.voterCsv, 100_000);
  const r = await runChild(
    [dataDir, list, truth, join(fixture.root, 'match-result.csv'), '--build'],
    options.profileArgs('match', 'child'),
  );
  record(recorder, '1M voters', r, 10_000);
  if (r.buildSeconds !== null) {
    recorder.metric(
      `match index build from the stored records (normalize + blocking keys + sort + merge), ${r.buildThreads} threads`,
      r.voters / r.buildSeconds,
      'rows/s',
      {
        target: { min: 200_000 },
        note: `${formatNumber(r.voters)} voters in ${r.buildSeconds.toFixed(1)} s, best of 3; at import it runs on all cores but the CSV parser's`,
      },
    );
  }
}

/** 10M voters generated and imported for this run, and a 50k-row mixed list. */
export async function match10mBenchmark(recorder: Recorder, options: BenchOptions): Promise<void> {
  await matchGeneratedBenchmark(recorder, options, 10, 5_000);
}

/** 20M voters (the second sizing point of a sharded national file), and a 50k-row mixed list. */
export async function match20mBenchmark(recorder: Recorder, options: BenchOptions): Promise<void> {
  await matchGeneratedBenchmark(recorder, options, 20, null);
}

async function matchGeneratedBenchmark(
  recorder: Recorder,
  options: BenchOptions,
  millions: number,
  targetRowsPerSecond: number | null,
): Promise<void> {
  const name = `match${millions}m`;
  const rows = millions * 1_000_000;
  const dir = await tempDir(name);
  try {
    const voterCsv = join(dir.path, `voters-${millions}m.csv`);
    log(`${name}: listmatch generate voters --rows ${rows}`);
    await runCli(['generate', 'voters', '--rows', String(rows), '--seed', '3', '--out', voterCsv], {
      dataDir: dir.path,
      timeoutMs: CLI_TIMEOUT_MS,
    });
    const dataDir = join(dir.path, 'data');
    log(`${name}: listmatch voters import (${millions}M rows, match index included)`);
    const imported = await runCli(['voters', 'import', voterCsv, '--json'], {
      dataDir,
      timeoutMs: CLI_TIMEOUT_MS,
    });
    recorder.metric(
      `voters import of ${millions}M rows with the match index (CLI, spawn to exit)`,
      rows / (imported.ms / 1000),
      'rows/s',
      {
        note: `${(imported.ms / 1000).toFixed(0)} s`,
      },
    );
    const { list, truth } = await makeList(dir.path, voterCsv, 50_000);
    const r = await runChild(
      [dataDir, list, truth, join(dir.path, 'match-result.csv')],
      options.profileArgs(name, 'child'),
    );
    record(recorder, `${millions}M voters`, r, targetRowsPerSecond);
  } finally {
    await dir.remove();
  }
}
