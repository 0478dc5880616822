/**
 * The stages a block of a list goes through, composed as each pass needs them. Each runs where
 * the block is sent (the job's thread, or a matching thread: block-executor.ts), on plain data:
 * - match: cut (parse) → route → match → merge → format (a list against the shards held here);
 * - split: cut → route, the rows written as chunk lines for the shards' workers (the queue);
 * - assemble: cut → merge (the chunks' outcomes of its rows) → format (the queue's last step).
 */
import type { CsvBlock } from '../csv/csv-blocks.ts';
import type { CsvRecord } from '../csv/csv-reader.ts';
import type { Matcher, MatchInput, MatchOutcome } from '../matching/matcher.ts';
import { type ChunkOutcome, type ChunkRow, outcomeOfLine, rowOfLine } from './chunk-lines.ts';
import type { BlockSpec } from './list-run.ts';
import { blockRows } from './stages/cut.ts';
import { BlockLines, type BlockResult, type ShardSnapshots } from './stages/format.ts';
import { matchInShards } from './stages/match.ts';
import { mergeOutcomes, mergeSwapped, wantsSwappedReadings, withSwappedReadings } from './stages/merge.ts';
import { countRoute, type ListRouter, noRouting, ONE_SHARD, type RoutingCounts } from './stages/route.ts';

/** What a block stage gives back: the block's lines and counts, and what its pass needs besides. */
export interface BlockOutput {
  result: BlockResult;
  /** How its rows were routed (against a sharded voter file). */
  routing?: RoutingCounts;
  /** Its rows with their shards, in order (the split's chunk lines). */
  routed?: RoutedRow[];
}

/** A row routed by the split: its chunk line (ending in a newline) and its shards. */
export interface RoutedRow {
  line: string;
  shards: readonly number[];
  everywhere: boolean;
}

/** The shards a match stage holds: how rows are routed to them, their matchers and snapshots. */
export interface HeldShards {
  router: ListRouter;
  /** Shard i's matcher, with the run's model. */
  matcherOf(shard: number): Matcher;
  /** Shard i's snapshot, for the candidates' values (an unsharded file: its one snapshot). */
  snapshots: ShardSnapshots;
}

/** match: parse → route → match → merge → format. */
export async function matchBlock(block: CsvBlock, spec: BlockSpec, held: HeldShards): Promise<BlockOutput> {
  const parsed = blockRows(block, spec);
  const routing = held.router === ONE_SHARD ? null : noRouting();
  const found = await matchInShards(
    parsed.inputs,
    spec.run,
    held.router,
    (s) => held.matcherOf(s),
    (s) => indexOf(held, s),
    routing,
  );
  const merged = found.map((outcomes) =>
    mergeOutcomes(outcomes, spec.run.maxMatches, spec.run.thresholdScore),
  );
  await matchSwapped(parsed.inputs, found, merged, spec, held);
  const result = formatRows(block, spec, parsed, merged, held.snapshots);
  return routing === null ? { result } : { result, routing };
}

/**
 * The rows matched in several shards whose names as written matched nothing in any of them and
 * may be swapped (MatchOutcome.maySwap): searched swapped in each of their shards and weighed as
 * one (mergeSwapped), which is what one voter file does with them. Replaces their outcomes in
 * `merged` where the swapped names match.
 */
async function matchSwapped(
  inputs: readonly MatchInput[],
  found: readonly (readonly MatchOutcome[])[],
  merged: MatchOutcome[],
  spec: BlockSpec,
  held: HeldShards,
): Promise<void> {
  const at = merged.flatMap((outcome, i) => (wantsSwappedReadings(outcome, found[i]!) ? [i] : []));
  if (at.length === 0) return;
  const readings = await matchInShards(
    at.map((i) => inputs[i]!),
    spec.run,
    held.router,
    (s) => held.matcherOf(s),
    (s) => indexOf(held, s),
    null,
    true,
  );
  at.forEach((i, k) => {
    const swapped = mergeSwapped(
      readings[k]!,
      spec.run.maxMatches,
      spec.run.thresholdScore,
      merged[i]!.problems,
    );
    if (swapped !== null) merged[i] = swapped;
  });
}

/** A held shard's index (its snapshot's), where rows are placed over their shards. */
const indexOf = (held: HeldShards, shard: number) => held.snapshots[shard]?.matchIndex ?? null;

/** split: parse → route; each row's chunk line with its shards, and the block's counts. */
export function splitBlock(block: CsvBlock, spec: BlockSpec, router: ListRouter): BlockOutput {
  const parsed = blockRows(block, spec);
  const asOf = new Date(spec.run.asOf);
  const routing = noRouting();
  const routed = parsed.inputs.map((row): RoutedRow => {
    const route = router.route(row, null, asOf);
    countRoute(routing, route);
    const chunkRow: ChunkRow =
      route.shards.length > 1 ? { r: row.row, f: row.fields, m: 1 } : { r: row.row, f: row.fields };
    const line = `${JSON.stringify(chunkRow)}\n`;
    return { line, shards: route.shards, everywhere: route.everywhere };
  });
  const unmatched = parsed.inputs.map((): MatchOutcome => ({ candidates: [] }));
  return { result: formatRows(block, spec, parsed, unmatched, []), routing, routed };
}

/** Per chunk stream (one per shard, in map order), the output lines of a block's rows. */
export type BlockOutcomeLines = string[][];

/** assemble: parse → merge each row's outcomes from the chunks' lines `lines` → format. */
export function assembleBlock(block: CsvBlock, spec: BlockSpec, lines: BlockOutcomeLines): BlockOutput {
  const parsed = blockRows(block, spec);
  const at = lines.map(() => 0);
  const merged = parsed.inputs.map((row) => {
    const found: MatchOutcome[] = [];
    for (let i = 0; i < lines.length; i++) {
      const text = lines[i]![at[i]!];
      if (text === undefined || rowOfLine(text) !== row.row) continue;
      at[i]!++;
      found.push(outcomeOfLine(JSON.parse(text) as ChunkOutcome));
    }
    if (found.length === 0) throw new Error(`no chunk holds the outcome of row ${row.row}`);
    // Names as written matched in no shard: the chunks' swapped readings, weighed as one.
    const merged = mergeOutcomes(found, spec.run.maxMatches, spec.run.thresholdScore);
    return withSwappedReadings(merged, found, spec.run.maxMatches, spec.run.thresholdScore);
  });
  // Candidates carry their values: no snapshot is read.
  return { result: formatRows(block, spec, parsed, merged, []) };
}

/** format: each parsed row with its merged outcome, as the block's lines and counts. */
function formatRows(
  block: CsvBlock,
  spec: BlockSpec,
  parsed: { rows: CsvRecord[]; warnings: BlockResult['warnings']; raggedRows: number; inputs: MatchInput[] },
  outcomes: readonly MatchOutcome[],
  snapshots: ShardSnapshots,
): BlockResult {
  const lines = new BlockLines(spec);
  for (let i = 0; i < parsed.rows.length; i++) {
    lines.add(parsed.rows[i]!.fields, parsed.inputs[i]!.row, outcomes[i]!, snapshots);
  }
  return {
    index: block.index,
    ...lines.texts(),
    bestIds: lines.bestIds,
    tally: lines.tally,
    warnings: [...block.leadingWarnings, ...parsed.warnings],
    raggedRows: parsed.raggedRows,
  };
}
