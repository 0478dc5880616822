/**
 * The evaluation runner: imports a voter file into a scratch data directory, runs the worker's
 * pipeline (`matchList`) over a list, streams the result back and scores it against the truth.
 * The scratch directory lives under the OS temp dir (or `workDir`) and is always removed.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ThreadedMatcherFactory } from '../../adapters/matching/threaded-matcher-factory.ts';
import { FsVoterStore } from '../../adapters/voters/fs-voter-store.ts';
import { readCsvTable } from '../../domain/csv/csv-reader.ts';
import { LEAD_COLUMNS, MATCH_COLUMNS } from '../../domain/list-matching/list-layout.ts';
import { listRun } from '../../domain/list-matching/list-run.ts';
import { type ListExecutor, type ListSummary, matchList } from '../../domain/list-matching/match-list.ts';
import type { ListFit, Matcher } from '../../domain/matching/matcher.ts';
import {
  DEFAULT_THRESHOLD_SCORE,
  type ProbabilisticMatcherOptions,
} from '../../domain/matching/probabilistic-matcher.ts';
import type { VoterImportReport, VoterSnapshot } from '../../domain/voters/voter-snapshot.ts';
import {
  type EvaluationMetrics,
  MetricsAccumulator,
  type RankedCandidate,
  type TruthEntry,
} from './metrics.ts';
import { OracleAccumulator, type OracleResult } from './oracle.ts';
import { parseTruthEntry, truthLayout } from './truth.ts';

/** Longest CSV record read (the service's default MAX_ROW_BYTES). */
export const EVAL_MAX_ROW_BYTES = 1 << 20;

export type MatcherFactory = (voters: VoterSnapshot) => Matcher | Promise<Matcher>;

export interface RunEvaluationOptions {
  votersPath: string;
  listPath: string;
  /** Truth CSV (see truth.ts) … */
  truthPath?: string;
  /** … or the truth in memory, by matchback_id (exactly one of the two). */
  truth?: ReadonlyMap<string, TruthEntry>;
  /** max_matches of the run, 1-10 (the depth of recall@k). */
  maxMatches: number;
  /** Also copy the pipeline's result CSV here (to look at single rows beside the truth). */
  resultCopy?: string;
  /** Default: the service's matcher (ids, then probabilistic) with `matcherOptions`, on `threads`. */
  matcherFactory?: MatcherFactory;
  matcherOptions?: Partial<ProbabilisticMatcherOptions>;
  /** Matching threads of the default matcher (default: one per CPU; 0: in-thread). */
  threads?: number;
  /** Parent of the scratch data directory; default os.tmpdir(). */
  workDir?: string;
  /** The job's reference date (age → birth year); default now. */
  asOf?: Date;
  /**
   * Also run the candidate stage alone (every candidate, up to 10, ranked) and measure the oracle
   * ceiling per pattern and error tag (oracle.ts).
   */
  oracle?: boolean;
  onProgress?: (stage: 'import' | 'match' | 'score', done: number) => void;
}

export interface EvaluationTimings {
  importRows: number;
  importSeconds: number;
  importRowsPerSecond: number;
  matchRows: number;
  /** The pipeline alone: parse → match → write. */
  matchSeconds: number;
  matchRowsPerSecond: number;
  scoreSeconds: number;
}

export interface EvaluationResult {
  metrics: EvaluationMetrics;
  /** With `oracle`: what a matcher knowing every field's agreement could tell apart. */
  oracle?: OracleResult;
  timings: EvaluationTimings;
  matcher: string;
  /** What the matcher fitted on the list (its match odds, relatives' odds and m), if it fits one. */
  fit?: ListFit;
  voterImport: Pick<
    VoterImportReport,
    'rowsRead' | 'imported' | 'rejected' | 'rejectedByReason' | 'warningsByKind'
  >;
  pipeline: Pick<
    ListSummary,
    'rows' | 'matchedRows' | 'matchRate' | 'matchesByMethod' | 'unmatchedReasons'
  > & {
    warnings: number;
  };
  join: {
    /** List rows scored (they have a truth entry). */
    scoredRows: number;
    /** List rows whose matchback_id is not in the truth (left out of every figure). */
    rowsWithoutTruth: number;
    /** Truth entries no list row carried (left out of every figure). */
    truthWithoutRow: number;
    /** List rows whose matchback_id appeared on an earlier row (scored once, at the first). */
    duplicateMatchbackIds: number;
  };
}

const roundRate = (rows: number, seconds: number) => Math.round(rows / Math.max(seconds, 1e-6));

export async function runEvaluation(options: RunEvaluationOptions): Promise<EvaluationResult> {
  if (!Number.isInteger(options.maxMatches) || options.maxMatches < 1 || options.maxMatches > 10) {
    throw new Error('max matches must be an integer from 1 to 10');
  }
  if ((options.truthPath === undefined) === (options.truth === undefined)) {
    throw new Error('give the truth either as a file (truthPath) or in memory (truth), not both');
  }
  const truth = options.truth ?? (await readTruthFile(options.truthPath!));
  const scratch = await mkdtemp(join(options.workDir ?? tmpdir(), 'listmatch-eval-'));
  const closers: (() => Promise<void>)[] = [];
  try {
    const store = new FsVoterStore({ dir: join(scratch, 'voters'), maxRowBytes: EVAL_MAX_ROW_BYTES });
    let started = performance.now();
    const imported = await store.importFile(options.votersPath, {
      replace: true,
      onProgress: (bytes) => options.onProgress?.('import', bytes),
    });
    const importSeconds = (performance.now() - started) / 1000;
    const voters = await store.current();
    if (voters === null) throw new Error('the voter import produced no voter file');
    const factory = new ThreadedMatcherFactory(options.threads ?? availableParallelism());
    closers.push(() => factory.close());
    /**
     * The executor of a run: the given factory's matcher on this thread, or the service's matcher
     * with `matcherOptions` on the threads. `made` keeps the matcher fitted on the list (its fit is
     * reported).
     */
    const made: Matcher[] = [];
    const executorOf = async (extra: Partial<ProbabilisticMatcherOptions>): Promise<ListExecutor> => {
      const given = options.matcherFactory === undefined ? null : await options.matcherFactory(voters);
      const keep = (matcher: Matcher) => {
        made.push(matcher);
        return matcher;
      };
      return {
        matcher: (v, fit) =>
          keep(
            given ??
              factory.create(v, {
                ...options.matcherOptions,
                ...extra,
                ...(fit === null ? {} : { listFit: fit }),
              }),
          ),
        blocks: (held, whole) => factory.blocks(held, whole),
      };
    };

    // The list through the worker's pipeline, into `path` (both runs on the same job date).
    const asOf = options.asOf ?? new Date();
    const runList = (
      executor: ListExecutor,
      path: string,
      maxMatches: number,
      onProgress?: (rows: number) => void,
    ) =>
      matchList({
        open: () => createReadStream(options.listPath, { highWaterMark: 1 << 20 }),
        sinks: { output: createWriteStream(path) },
        run: listRun({
          maxMatches,
          searchRadiusMiles: null,
          asOf,
          thresholdScore: options.matcherOptions?.thresholdScore ?? DEFAULT_THRESHOLD_SCORE,
          appendedFields: [],
          maxRowBytes: EVAL_MAX_ROW_BYTES,
          outputs: { every: true },
        }),
        voters,
        executor,
        ...(onProgress === undefined ? {} : { onProgress }),
      });
    const resultPath = join(scratch, 'result.csv');
    started = performance.now();
    const summary = await runList(await executorOf({}), resultPath, options.maxMatches, (rows) =>
      options.onProgress?.('match', rows),
    );
    const matcher = made[0];
    const matchSeconds = (performance.now() - started) / 1000;
    if (options.resultCopy !== undefined) await copyFile(resultPath, options.resultCopy);

    started = performance.now();
    const scored = await scoreResultFile(resultPath, truth, options.maxMatches, (rows) =>
      options.onProgress?.('score', rows),
    );
    const scoreSeconds = (performance.now() - started) / 1000;
    let oracle: OracleResult | undefined;
    if (options.oracle) {
      const rankedPath = join(scratch, 'ranked.csv');
      await runList(await executorOf({ rankOnly: true }), rankedPath, 10);
      const accumulator = new OracleAccumulator();
      await scoreResultFile(rankedPath, truth, 10, undefined, accumulator);
      oracle = accumulator.result();
    }
    return {
      metrics: scored.metrics,
      ...(oracle === undefined ? {} : { oracle }),
      matcher: matcher?.name ?? 'none',
      ...(matcher === undefined || fitOf(matcher) === undefined ? {} : { fit: fitOf(matcher)! }),
      timings: {
        importRows: imported.imported,
        importSeconds,
        importRowsPerSecond: roundRate(imported.imported, importSeconds),
        matchRows: summary.rows,
        matchSeconds,
        matchRowsPerSecond: roundRate(summary.rows, matchSeconds),
        scoreSeconds,
      },
      voterImport: {
        rowsRead: imported.rowsRead,
        imported: imported.imported,
        rejected: imported.rejected,
        rejectedByReason: imported.rejectedByReason,
        warningsByKind: imported.warningsByKind,
      },
      pipeline: {
        rows: summary.rows,
        matchedRows: summary.matchedRows,
        matchRate: summary.matchRate,
        matchesByMethod: summary.matchesByMethod,
        unmatchedReasons: summary.unmatchedReasons,
        warnings: summary.warnings.total,
      },
      join: scored.join,
    };
  } finally {
    for (const close of closers) await close();
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Reads a truth CSV into a map by matchback_id; a repeated matchback_id is an error. */
export async function readTruthFile(path: string): Promise<Map<string, TruthEntry>> {
  const truth = new Map<string, TruthEntry>();
  let layout: ReturnType<typeof truthLayout> | null = null;
  for await (const event of readCsvTable(createReadStream(path, { highWaterMark: 1 << 20 }), {
    maxRowBytes: EVAL_MAX_ROW_BYTES,
    onWarning: () => {},
  })) {
    if (event.kind === 'header') {
      layout = truthLayout(event.header);
      continue;
    }
    const l = layout!;
    for (const row of event.rows) {
      const id = row.fields[l.matchbackId]!;
      if (truth.has(id)) throw new Error(`truth file line ${row.line}: matchback_id repeats an earlier row`);
      truth.set(
        id,
        parseTruthEntry(
          row.fields[l.voterbaseId]!,
          l.pattern < 0 ? undefined : row.fields[l.pattern],
          l.errors < 0 ? undefined : row.fields[l.errors],
        ),
      );
    }
  }
  if (layout === null) throw new Error('the truth file is empty');
  return truth;
}

/**
 * Streams a pipeline result CSV (input columns, then the match columns; a row with k matches
 * appears k times) and scores each input row against the truth.
 */
export async function scoreResultFile(
  resultPath: string,
  truth: ReadonlyMap<string, TruthEntry>,
  maxK: number,
  onProgress?: (rows: number) => void,
  oracle?: OracleAccumulator,
): Promise<{ metrics: EvaluationMetrics; join: EvaluationResult['join'] }> {
  const accumulator = new MetricsAccumulator(maxK);
  const seen = new Set<string>();
  const join = { scoredRows: 0, rowsWithoutTruth: 0, truthWithoutRow: 0, duplicateMatchbackIds: 0 };
  let columns: {
    matchbackId: number;
    inputRow: number;
    match: number;
    score: number;
    method: number;
    voter: number;
    explain: number;
  } | null = null;
  let current: { inputRow: string; matchbackId: string; candidates: RankedCandidate[] } | null = null;
  let rows = 0;

  const finishRow = () => {
    if (current === null) return;
    rows++;
    const entry = truth.get(current.matchbackId);
    if (seen.has(current.matchbackId)) join.duplicateMatchbackIds++;
    else if (entry === undefined) join.rowsWithoutTruth++;
    else {
      seen.add(current.matchbackId);
      join.scoredRows++;
      accumulator.add({ truth: entry, candidates: current.candidates });
      oracle?.add(entry, current.candidates);
    }
    current = null;
  };

  for await (const event of readCsvTable(createReadStream(resultPath, { highWaterMark: 1 << 20 }), {
    maxRowBytes: EVAL_MAX_ROW_BYTES,
    onWarning: () => {},
  })) {
    if (event.kind === 'header') {
      columns = resultLayout(event.header);
      continue;
    }
    const c = columns!;
    for (const record of event.rows) {
      const f = record.fields;
      const inputRow = f[c.inputRow]!;
      if (current === null || current.inputRow !== inputRow) {
        finishRow();
        current = { inputRow, matchbackId: f[c.matchbackId]!, candidates: [] };
      }
      if (f[c.match] === 'Y') {
        current.candidates.push({
          voterbaseId: unneutralize(f[c.voter]!),
          score: Number(f[c.score]),
          method: unneutralize(f[c.method]!),
          explain: f[c.explain]!,
        });
      }
    }
    onProgress?.(rows);
  }
  finishRow();
  if (columns === null) throw new Error('the pipeline wrote an empty result file');
  for (const id of truth.keys()) if (!seen.has(id)) join.truthWithoutRow++;
  return { metrics: accumulator.result(), join };
}

function resultLayout(header: readonly string[]) {
  // The service's own columns are the last ones (the evaluation appends no field); the lead
  // columns (ts__input_row … vb.voterbase_id) come right after the input columns.
  const base = header.length - MATCH_COLUMNS.length;
  const lead = base - LEAD_COLUMNS.length;
  if (lead < 0 || [...LEAD_COLUMNS, ...MATCH_COLUMNS].some((name, i) => header[lead + i] !== name)) {
    throw new Error('the result file does not end with the lead and match columns');
  }
  const matchbackId = header.slice(0, lead).findIndex((name) => name.trim().toLowerCase() === 'matchback_id');
  if (matchbackId < 0)
    throw new Error('the list has no matchback_id column, so its rows cannot be joined to the truth');
  const at = (name: (typeof MATCH_COLUMNS)[number] | (typeof LEAD_COLUMNS)[number]) =>
    name.startsWith('sm.')
      ? base + MATCH_COLUMNS.indexOf(name as (typeof MATCH_COLUMNS)[number])
      : lead + LEAD_COLUMNS.indexOf(name as (typeof LEAD_COLUMNS)[number]);
  return {
    matchbackId,
    inputRow: at('sm.input_row'),
    match: at('sm.match'),
    score: at('sm.score'),
    method: at('sm.method'),
    voter: at('vb.voterbase_id'),
    explain: at('sm.explain'),
  };
}

/** Undoes the result writer's formula neutralization (a `'` before `=`, `+`, `-`, `@`, TAB, CR). */
const unneutralize = (value: string): string => (/^'[=+\-@\t\r]/.test(value) ? value.slice(1) : value);

/** The list's fit of a matcher that fits one. */
function fitOf(matcher: Matcher): ListFit | undefined {
  return matcher.listFit?.() ?? undefined;
}
