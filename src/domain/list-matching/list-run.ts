import type { AppendedField } from '../keys/key-types.ts';
import type { MatchOptions } from '../matching/matcher.ts';
import type { ListLayout } from './list-layout.ts';

/**
 * Everything a list's run is matched and written with, fixed before its first row is read: from
 * the job and its profile (jobs/list-job-steps.ts), or from the CLI's options. Every stage reads
 * it; none rebuilds or changes it. Plain data, so it crosses to worker threads and into the
 * queue's messages as it is.
 */
export interface ListRun {
  /** Most lines written per input row (spec 2.4): the merge stage cuts each row's candidates to it. */
  readonly maxMatches: number;
  readonly searchRadiusMiles: number | null;
  /** The job's reference date (age → birth year), epoch milliseconds. */
  readonly asOf: number;
  /** Lowest score accepted as a match (the profile's, else MATCH_THRESHOLD). */
  readonly thresholdScore: number;
  /** Voter-file fields appended to each match, each written as `vb.<as>`. */
  readonly appendedFields: readonly AppendedField[];
  /** A longer row is skipped with a warning (MAX_ROW_BYTES). */
  readonly maxRowBytes: number;
  /** Which outputs are written: the CSV with every rank, the best/additional split, the best matches' ids. */
  readonly outputs: Readonly<{ every: boolean; split: boolean; bestIds: boolean }>;
  /** Rows of the sample the list's model is fitted on (SAMPLE_ROWS; fewer in tests). */
  readonly sampleRows: number;
}

/**
 * The sample the list's model is fitted on: the first SAMPLE_ROWS data rows that the fit shard
 * holds (stages/fit.ts; for an unsharded file the list's first rows). A few thousand rows fit m
 * well; a few hundred fit it measurably worse (NC benchmark recall 0.9986 against 0.9990).
 */
export const SAMPLE_ROWS = 5000;

/** A run, frozen: what every stage reads. `outputs` and `sampleRows` have defaults. */
export function listRun(
  settings: Omit<ListRun, 'outputs' | 'sampleRows' | 'asOf'> & {
    asOf: Date | number;
    outputs?: Partial<ListRun['outputs']>;
    sampleRows?: number;
  },
): ListRun {
  return Object.freeze({
    maxMatches: settings.maxMatches,
    searchRadiusMiles: settings.searchRadiusMiles,
    asOf: typeof settings.asOf === 'number' ? settings.asOf : settings.asOf.getTime(),
    thresholdScore: settings.thresholdScore,
    appendedFields: Object.freeze(settings.appendedFields.map((field) => Object.freeze({ ...field }))),
    maxRowBytes: settings.maxRowBytes,
    outputs: Object.freeze({ every: false, split: false, bestIds: false, ...settings.outputs }),
    sampleRows: settings.sampleRows ?? SAMPLE_ROWS,
  });
}

/** The run with other outputs (a pass that writes nothing: the split, the sample). */
export const withOutputs = (run: ListRun, outputs: Partial<ListRun['outputs']>): ListRun =>
  Object.freeze({
    ...run,
    outputs: Object.freeze({ every: false, split: false, bestIds: false, ...outputs }),
  });

/** What the matchers take of a run. */
export function matchOptionsOf(
  run: Pick<ListRun, 'maxMatches' | 'searchRadiusMiles' | 'asOf'>,
): MatchOptions {
  return { maxMatches: run.maxMatches, searchRadiusMiles: run.searchRadiusMiles, asOf: new Date(run.asOf) };
}

/**
 * A block's share of the run: the run and the list's layout (known once its header is read).
 * What a block stage is given, here or on a worker thread.
 */
export interface BlockSpec {
  readonly run: ListRun;
  readonly layout: ListLayout;
}
