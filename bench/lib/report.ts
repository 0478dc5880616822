import { execFileSync } from 'node:child_process';
import os from 'node:os';

/** A target from the issue: the measured value must be at least `min` and/or below `max`. */
export interface Target {
  min?: number;
  max?: number;
}

/** One line of the results table: a measured figure, or a correctness check. */
export interface Row {
  benchmark: string;
  metric: string;
  /** The measured figure as shown, e.g. `5,123 req/s`. */
  measured: string;
  /** The number behind `measured` (null for checks and errors). */
  value: number | null;
  unit: string;
  /** The target as shown, e.g. `≥ 5,000 req/s`; empty when there is none. */
  target: string;
  /** true/false against the target or check; null when there is nothing to compare with. */
  pass: boolean | null;
  kind: 'metric' | 'check' | 'error';
  note: string;
}

export interface BenchmarkOutcome {
  name: string;
  rows: Row[];
  /** Everything measured, for latest.json. */
  raw: Record<string, unknown>;
  durationMs: number;
}

export interface Environment {
  node: string;
  v8: string;
  cpuModel: string;
  cores: number;
  memoryGiB: number;
  platform: string;
  gitCommit: string | null;
  /** 1/5/15-minute load averages when the run started: other work on the machine skews results. */
  loadAverage: number[];
}

export function environment(): Environment {
  const cpus = os.cpus();
  return {
    node: process.version,
    v8: process.versions.v8,
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cores: os.availableParallelism(),
    memoryGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    gitCommit: gitCommit(),
    loadAverage: os.loadavg().map((n) => Math.round(n * 100) / 100),
  };
}

function gitCommit(): string | null {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8', timeout: 5000 }).trim();
  } catch {
    return null;
  }
}

export function formatNumber(value: number, digits = 0): string {
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/**
 * Each row on stderr as it is recorded: a run cut short (a lent machine's time limit, a timeout)
 * still leaves the figures it measured in its log. Notes name sizes and timings, never row content.
 */
function printRow(metric: string, measured: string, note: string): void {
  process.stderr.write(`[bench] = ${metric}: ${measured}${note === '' ? '' : ` (${note})`}\n`);
}

/** Collects the rows of one benchmark. */
export class Recorder {
  readonly rows: Row[] = [];
  readonly raw: Record<string, unknown> = {};
  private readonly benchmark: string;

  constructor(benchmark: string) {
    this.benchmark = benchmark;
  }

  /** A measured figure, compared with `target` when one is given. */
  metric(
    metric: string,
    value: number,
    unit: string,
    options: { digits?: number; target?: Target; note?: string } = {},
  ): void {
    const digits = options.digits ?? 0;
    const shown = (n: number) => `${formatNumber(n, digits)}${unit === '' ? '' : ` ${unit}`}`;
    const target = options.target;
    let pass: boolean | null = null;
    let targetText = '';
    if (target !== undefined) {
      pass = true;
      const parts: string[] = [];
      if (target.min !== undefined) {
        parts.push(`≥ ${shown(target.min)}`);
        pass &&= value >= target.min;
      }
      if (target.max !== undefined) {
        parts.push(`< ${shown(target.max)}`);
        pass &&= value < target.max;
      }
      targetText = parts.join(' and ');
    }
    printRow(metric, shown(value), options.note ?? '');
    this.rows.push({
      benchmark: this.benchmark,
      metric,
      measured: shown(value),
      value,
      unit,
      target: targetText,
      pass,
      kind: 'metric',
      note: options.note ?? '',
    });
  }

  /** A correctness check: `actual` must equal `expected` (or `ok` decides). */
  check(metric: string, actual: string, expected: string, ok = actual === expected, note = ''): void {
    printRow(metric, `${actual} (expected ${expected})`, note);
    this.rows.push({
      benchmark: this.benchmark,
      metric,
      measured: actual,
      value: null,
      unit: '',
      target: expected,
      pass: ok,
      kind: 'check',
      note,
    });
  }

  error(error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    this.rows.push({
      benchmark: this.benchmark,
      metric: 'error',
      measured: message.split('\n')[0] ?? message,
      value: null,
      unit: '',
      target: 'completes',
      pass: false,
      kind: 'error',
      note: '',
    });
    this.raw['error'] = error instanceof Error ? (error.stack ?? message) : message;
  }
}

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

export function markdownReport(
  env: Environment,
  outcomes: BenchmarkOutcome[],
  startedAt: Date,
  runs: number,
): string {
  const rows = outcomes.flatMap((outcome) => outcome.rows);
  const lines = [
    '# listmatch benchmarks',
    '',
    `- date: ${startedAt.toISOString()}${env.gitCommit === null ? '' : `, commit ${env.gitCommit}`}`,
    `- node ${env.node} (V8 ${env.v8}), ${env.platform}`,
    `- cpu: ${env.cpuModel}, ${env.cores} cores, ${env.memoryGiB} GiB memory; load average at start ${env.loadAverage.join(' / ')}`,
    `- poll/register: one 10 s autocannon run each (after a warm-up); upload/import/pipeline: median of ${runs} run(s)`,
    '',
    '| Benchmark | Metric | Measured | Target | Result | Notes |',
    '| --- | --- | ---: | --- | :---: | --- |',
    ...rows.map((row) =>
      [
        '',
        row.benchmark,
        cell(row.metric),
        cell(row.measured),
        cell(row.target),
        row.pass === null ? '' : row.pass ? 'pass' : '**FAIL**',
        cell(row.note),
        '',
      ]
        .join(' | ')
        .trim(),
    ),
    '',
  ];
  const missed = rows.filter((row) => row.pass === false);
  lines.push(
    missed.length === 0
      ? 'All targets and checks passed.'
      : `Missed: ${missed.map((row) => `${row.benchmark} ${row.metric}`).join('; ')}.`,
  );
  const timings = outcomes.map((o) => `${o.name} ${(o.durationMs / 1000).toFixed(1)} s`).join(', ');
  lines.push('', `Benchmark wall time: ${timings}.`, '');
  return lines.join('\n');
}
