import type { MatchIndex } from '../../matching/index/match-index.ts';
import type { ListFit, Matcher, MatchInput } from '../../matching/matcher.ts';
import { normalizeInput } from '../../matching/normalize/person.ts';
import {
  DEFAULT_MATCHER_OPTIONS,
  fitFromEvidence,
  mergeSampleEvidence,
  type RowEvidence,
  rowsToFit,
} from '../../matching/probabilistic-matcher.ts';
import { type ListRun, matchOptionsOf } from '../list-run.ts';
import { type PersonHomes, placeRow, type ShardsNear } from './place.ts';

/**
 * The fit stage: the list's model (EM's m, its match rate) learned once, on its sample (the list's
 * first rows: sample-pass.ts), and read by every shard's matcher. Each sample person's evidence
 * is gathered in every shard its row is routed to and weighed as one voter file holding them all
 * would weigh it (mergeSampleEvidence), so the model is the same however the file is stored and
 * wherever the shards are matched.
 */

/** A sample row with the shards it is routed to. */
export interface SampleRow {
  row: MatchInput;
  shards: readonly number[];
}

/** A matcher that gives a list's fit its evidence (the probabilistic matcher). */
export interface EvidenceMatcher extends Matcher {
  /** The rows an id of its voter file matches (row numbers): the fit leaves them out. */
  idMatched(rows: readonly MatchInput[]): Set<number>;
  /** What the rows' persons tell the fit in its voter file. */
  sampleEvidence(
    rows: readonly MatchInput[],
    options: ReturnType<typeof matchOptionsOf>,
  ): Promise<RowEvidence[]>;
}

export const givesEvidence = (matcher: Matcher): matcher is EvidenceMatcher =>
  'idMatched' in matcher && 'sampleEvidence' in matcher;

/** Rows of the sample the fit weighs at most (of those no id matched). */
export const FIT_ROWS = DEFAULT_MATCHER_OPTIONS.emSampleRows;

/** What the fit places its rows by (place.ts): the shards' indexes and the map's reach. */
export interface FitPlacing {
  indexOf: (shard: number) => MatchIndex | null;
  near: ShardsNear;
  homes: PersonHomes | null;
}

/**
 * The list's fit from its sample, each shard's evidence from `matcherOf(shard)` (a matcher not yet
 * fitted); with `placing`, a row is weighed in the shards its radius reaches and placed over its
 * shards, as the match stage does (place.ts). Null for a list without sample rows, or matchers
 * that learn nothing from a list.
 */
export async function fitList(
  sample: readonly SampleRow[],
  matcherOf: (shard: number) => Matcher,
  run: ListRun,
  placing: FitPlacing | null = null,
): Promise<ListFit | null> {
  const shards = [...new Set(sample.flatMap((row) => row.shards))].sort((a, b) => a - b);
  if (shards.length === 0) return null;
  const made = new Map(shards.map((shard) => [shard, matcherOf(shard)]));
  const matchers = [...made.values()];
  if (!matchers.every(givesEvidence)) {
    // A matcher of its own kind (the evaluation's deterministic one): it learns what it learns.
    if (matchers.length !== 1) return null;
    return await fitOn(
      matchers[0]!,
      sample.map((row) => row.row),
      run,
    );
  }
  const rowsOf = (shard: number) => sample.filter((row) => row.shards.includes(shard)).map((row) => row.row);
  const idMatched = new Set<number>();
  shards.forEach((shard, i) => {
    for (const row of matchers[i]!.idMatched(rowsOf(shard))) idMatched.add(row);
  });
  const fitted = new Set(
    rowsToFit(
      sample.map((row) => row.row),
      idMatched,
      FIT_ROWS,
    ).map((row) => row.row),
  );
  const options = matchOptionsOf(run);
  // With `placing` every row is normalized and placed here (the shards it is weighed in may be
  // more than its route's: those its radius reaches), as the match stage does; without it a row
  // of several shards is normalized once, here, and a row of one where it is matched (on a
  // matching thread, beside the others).
  const weighed = sample
    .filter(({ row }) => fitted.has(row.row))
    .map(({ row, shards: routed }): SampleRow => {
      if (row.normalized !== undefined || (routed.length < 2 && placing === null))
        return { row, shards: routed };
      const written = normalizeInput(row.fields, options.asOf);
      const placed =
        placing === null
          ? { normalized: written, shards: routed }
          : placeRow(written, routed, placing.indexOf, placing.near, run.searchRadiusMiles, placing.homes);
      return { row: { ...row, normalized: placed.normalized }, shards: placed.shards };
    });
  const evidence: RowEvidence[][] = [];
  for (const shard of [...new Set(weighed.flatMap((row) => row.shards))].sort((a, b) => a - b)) {
    const rows = weighed.filter((row) => row.shards.includes(shard)).map((row) => row.row);
    // A shard only a row's radius reaches has no matcher yet.
    const matcher = made.get(shard) ?? matcherOf(shard);
    made.set(shard, matcher);
    if (!givesEvidence(matcher)) throw new Error(`shard ${shard}'s matcher gives no evidence`);
    evidence.push(await matcher.sampleEvidence(rows, options));
  }
  return fitFromEvidence(mergeSampleEvidence(evidence));
}

/** The evidence of one shard's sample rows, with the rows its ids matched: what a queue's shard step gives the fit. */
export interface ShardEvidence {
  idMatched: number[];
  rows: RowEvidence[];
}

/**
 * The list's fit from the evidence each shard gave separately (the queue's steps: every shard
 * weighs its sample rows no id of its own matched; the rows no id matched anywhere are then
 * chosen here, as fitList chooses them): the same fit as fitList's.
 */
export function fitFromShards(sampleRows: readonly number[], shards: readonly ShardEvidence[]): ListFit {
  const idMatched = new Set(shards.flatMap((shard) => shard.idMatched));
  const chosen = new Set(
    rowsToFit(
      sampleRows.map((row) => ({ row })),
      idMatched,
      FIT_ROWS,
    ).map(({ row }) => row),
  );
  return fitFromEvidence(
    mergeSampleEvidence(shards.map((shard) => shard.rows.filter((row) => chosen.has(row.row)))),
  );
}

/** Fits `matcher` on the sample; what it learned (null: a matcher that learns nothing). */
export async function fitOn(
  matcher: Matcher,
  sample: readonly MatchInput[],
  run: ListRun,
): Promise<ListFit | null> {
  await matcher.prepare?.(sample, matchOptionsOf(run));
  return matcher.listFit?.() ?? null;
}
