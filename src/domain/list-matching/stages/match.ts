import type { MatchIndex } from '../../matching/index/match-index.ts';
import type { Matcher, MatchInput, MatchOutcome } from '../../matching/matcher.ts';
import { type NormalizedInput, normalizeInput } from '../../matching/normalize/person.ts';
import { type ListRun, matchOptionsOf } from '../list-run.ts';
import { placeRow } from './place.ts';
import { countRoute, type ListRouter, ONE_SHARD, type RoutingCounts } from './route.ts';

/**
 * The match stage: a batch of rows, each matched in every shard the router sends it to (all of a
 * shard's rows at once), by that shard's matcher with the run's model; a row of several shards
 * placed over them first (place.ts; `indexOf`: a shard's index). Per row, its outcomes in
 * shard order, each candidate marked with its shard (for the format stage to read its values).
 * `swapped`: the rows' swapped readings alone (MatchInput.swap `only`).
 */
export async function matchInShards(
  rows: readonly MatchInput[],
  run: ListRun,
  router: ListRouter,
  matcherOf: (shard: number) => Matcher,
  indexOf: (shard: number) => MatchIndex | null,
  routing: RoutingCounts | null,
  swapped = false,
): Promise<MatchOutcome[][]> {
  const options = matchOptionsOf(run);
  if (router === ONE_SHARD) {
    // An unsharded file: every row to its one matcher, as it is.
    const outcomes = await matcherOf(0).matchBatch(rows, options);
    return outcomes.map((outcome) => [outcome]);
  }
  const rowsOf = new Map<number, number[]>();
  const inputs = rows.map((row, i): MatchInput => {
    // The row is normalized anyway to be matched: routed from that, then placed over its shards
    // (and matched too where its radius reaches from its one shard: place.ts).
    const written: NormalizedInput = normalizeInput(row.fields, options.asOf);
    const route = router.route(row, written, options.asOf);
    if (routing !== null) countRoute(routing, route);
    const { normalized, shards } = placeRow(
      written,
      route.shards,
      indexOf,
      router.near,
      options.searchRadiusMiles,
      router.homes,
    );
    for (const shard of shards) {
      const own = rowsOf.get(shard);
      if (own === undefined) rowsOf.set(shard, [i]);
      else own.push(i);
    }
    // Normalized once: each shard's matcher reads it and changes nothing in it. A row matched in
    // several shards is searched swapped only once none of them matched it as written
    // (MatchInput.swap; block-stages.ts matchSwapped), as one voter file searches it.
    const swap: MatchInput['swap'] = swapped ? 'only' : shards.length > 1 ? 'later' : undefined;
    return swap === undefined ? { ...row, normalized } : { ...row, normalized, swap };
  });
  const found: MatchOutcome[][] = rows.map(() => []);
  for (const shard of [...rowsOf.keys()].sort((a, b) => a - b)) {
    const at = rowsOf.get(shard)!;
    const outcomes = await matcherOf(shard).matchBatch(
      at.map((i) => inputs[i]!),
      options,
    );
    at.forEach((i, k) => {
      found[i]!.push(inShard(outcomes[k]!, shard));
    });
  }
  return found;
}

/**
 * An outcome's candidates (those it passed over too), and those of its swapped reading
 * (MatchOutcome.swapped), marked with the shard they were found in (unmarked: shard 0). Marked
 * in place: a matcher's outcome is its caller's alone, and a copy of every candidate of every
 * shard a row is searched in is garbage to collect.
 */
export function inShard(outcome: MatchOutcome, shard: number): MatchOutcome {
  if (shard === 0) return outcome;
  for (const candidate of outcome.candidates) candidate.shard = shard;
  if (outcome.passed !== undefined) for (const candidate of outcome.passed) candidate.shard = shard;
  if (outcome.swapped !== undefined) inShard(outcome.swapped, shard);
  return outcome;
}
