import type { ContactField } from '../keys/key-types.ts';

export const jobStates = ['registered', 'uploaded', 'processing', 'complete', 'failed', 'expired'] as const;
export type JobState = (typeof jobStates)[number];

export type OutputFormat = 'csv' | 'zip' | 'gzip';

export interface SmartmatchParams {
  webhook: string | null;
  include: ContactField[];
  maxMatches: number;
  format: OutputFormat;
  searchRadiusMiles: number | null;
  notificationEmail: string | null;
  mbpOnboarding: boolean;
  digitalAudienceName: string | null;
  profileId: string;
}

export interface OnboardingParams {
  platform: 'social' | 'politicaldsp';
  audience: string;
  statusEmail: string;
  socialAdid: string | null;
  ownerAdid: string | null;
}

interface JobBase {
  id: string;
  keyId: string;
  state: JobState;
  /** Epoch ms after which the upload URL no longer works and a never-uploaded job expires. */
  uploadExpiresAt: number;
  uploadBlob: string | null;
  uploadBytes: number | null;
  resultBlob: string | null;
  /** File name the result downloads as. */
  resultName: string | null;
  /** Client-safe reason, set when state is failed or expired. */
  error: string | null;
  summary: JobSummary | null;
  voterVersion: string | null;
  createdAt: number;
  updatedAt: number;
  /** How far matching has got: written by the worker while the job runs (absent before). */
  progress?: JobProgress | null;
}

/**
 * A running job's progress as the worker last recorded it (at most about once a second). Rows are
 * counted once through the matcher; bytes are of the upload, read by the matching pass (the reader
 * runs a few blocks ahead of the matcher).
 */
export interface JobProgress {
  /** Rows of the list through matching so far (matched to a voter or not): the result holds them. */
  rowsMatched: number;
  /** Bytes of the upload read by the matching pass so far. */
  bytesRead: number;
  /** The upload's size. */
  bytesTotal: number;
  /** Epoch ms of the record. */
  at: number;
  /**
   * A list split into chunks over a sharded voter file (rowsMatched stays 0): its rows, their
   * shard-rows (a row matched in three shards counts three), and the shard-rows its chunks have
   * matched so far (JobStore.addChunkRows; a chunk run again after a crash counts again).
   */
  chunks?: { listRows: number; shardRows: number; shardRowsMatched: number };
}

export interface SmartmatchJob extends JobBase {
  kind: 'smartmatch';
  filename: string;
  params: SmartmatchParams;
}

export interface OnboardingJob extends JobBase {
  kind: 'onboarding';
  filename: null;
  params: OnboardingParams;
}

export type Job = SmartmatchJob | OnboardingJob;

/**
 * Cells starting with `=`, `+`, `-`, `@`, tab or CR that are not plain numbers (the test of the
 * CSV writer's formula guard): their total and the count per column name, never their values.
 */
export interface FormulaCells {
  total: number;
  byColumn: Record<string, number>;
}

/** What summary.json holds; counts only, never row contents. */
export interface JobSummary {
  rows: number;
  matchedRows: number;
  outputRows: number;
  matchRate: number;
  matchesByMethod: Record<string, number>;
  /**
   * Matched rows by the `state` of their best match's voter record (`unknown` when it has none);
   * the counts add up to matchedRows, like matchesByMethod's.
   */
  matchesByState: Record<string, number>;
  /** Scores of the matched rows' best matches in bands of 5 (0-4, …, 90-94, 95-100). */
  bestScoreHistogram: { from: number; to: number; count: number }[];
  unmatchedReasons: Record<string, number>;
  /** Rows with a value present but unusable, by kind (`invalid_phone`, `invalid_dob`, …). */
  inputProblems: Record<string, number>;
  /** Matched rows whose best two candidates were near-equal (`ambiguous` in sm.explain). */
  ambiguousMatches: number;
  /**
   * Matched rows whose best match may be another member of the household, a twin (another first
   * name, the same date of birth and household: `possible` in sm.explain, scored 89 at most). A
   * profile threshold of 90 excludes them. Absent from summaries of jobs completed before.
   */
  possibleMatches?: number;
  identifierColumns: string[];
  passthroughColumns: string[];
  /**
   * Cells of the client's own columns (header included) that a spreadsheet would read as a
   * formula: returned unchanged, so the operator can warn the client. Absent from the summaries
   * of jobs completed before it was counted.
   */
  formulaCells?: FormulaCells;
  warnings: { total: number; byKind: Record<string, number>; first: string[] };
  /**
   * A list matched against a sharded voter file: how its rows were routed. `shardRows` counts a
   * row once per shard it was matched in; `everywhere` counts the rows nothing placed (no state,
   * ZIP, coordinates, phone or e-mail the voter file knows), matched in every shard.
   */
  shardRouting?: { rows: number; shardRows: number; everywhere: number; shards: number };
  voterFileVersion: string | null;
  /** Lowest score accepted as a match: the profile's, else the service's MATCH_THRESHOLD. */
  matchThreshold: number;
  startedAt: string;
  completedAt: string;
  durationMs: number;
}
