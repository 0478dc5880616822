/**
 * A sharded list matched in one pass, where one process holds every shard (`listmatch match`):
 * each block of the upload parsed, each row routed to its shards (route-rows.ts), matched in each
 * with the job's model, the outcomes merged (mergeOutcomes) and the block formatted. It gives what
 * the split, the chunks and the assembly give (sharded-list.ts, merge-chunks.ts), byte for byte,
 * without writing the chunks or reading the list twice: only a first stretch of the list is read
 * twice, up to the row that fills the fit shard's sample (FitShard).
 */
import type { CsvBlock } from '../csv/csv-blocks.ts';
import type { AppendedField } from '../keys/key-types.ts';
import type { ListFit, Matcher, MatchInput, MatchOptions, MatchOutcome } from '../matching/matcher.ts';
import { type NormalizedInput, normalizeInput } from '../matching/normalize/person.ts';
import type { ShardDirectory } from '../voters/shard-directory.ts';
import type { Route, ShardMap } from '../voters/shard-map.ts';
import type { VoterSnapshot, VoterStore } from '../voters/voter-snapshot.ts';
import type { BlockRunner, ListMatcher } from './block-runner.ts';
import { outcomeOfLine } from './chunk-lines.ts';
import { type BlockResult, type BlockSpec, matchBlock } from './match-block.ts';
import { matchList, SAMPLE_ROWS } from './match-list.ts';
import { mergeOutcomes } from './merge-chunks.ts';
import { routeNormalized, routeOf } from './route-rows.ts';
import { chunkColumns, chunkOutcomeOf, FitShard, fitListOn } from './sharded-list.ts';

/** One shard as a row is matched in it. */
export interface ShardAtHand {
  voters: VoterSnapshot;
  /** Matches with the job's model (and its shard's u). */
  matcher: Matcher;
  /** The shard's columns each candidate carries (chunkColumns). */
  columns: readonly number[];
}

/** How rows were routed (the summary's shardRouting, less the shard count). */
export interface ShardRouting {
  rows: number;
  /** A row matched in three shards counts three times. */
  shardRows: number;
  /** Rows nothing placed: matched in every shard. */
  everywhere: number;
}

export const noRouting = (): ShardRouting => ({ rows: 0, shardRows: 0, everywhere: 0 });

/** A block matched in one pass, with how its rows were routed. */
export interface ShardedBlock {
  result: BlockResult;
  routing: ShardRouting;
}

/**
 * Each row's outcome over the shards `route` sends it to: matched in each (all of a shard's rows
 * of the batch at once), converted as a chunk's output line converts it (its candidates carry
 * their voter values) and merged in shard order, as the assembly merges the chunks' lines.
 */
export async function matchRoutedRows(
  rows: readonly MatchInput[],
  options: MatchOptions,
  route: (row: MatchInput, normalized: NormalizedInput) => Route,
  shardAt: (shard: number) => ShardAtHand,
  routing: ShardRouting,
  thresholdScore: number,
): Promise<MatchOutcome[]> {
  const rowsOf = new Map<number, number[]>();
  const inputs = rows.map((row) => {
    const normalized = normalizeInput(row.fields, options.asOf);
    const { shards, everywhere } = route(row, normalized);
    routing.rows++;
    routing.shardRows += shards.length;
    if (everywhere) routing.everywhere++;
    // A row matched in one shard is not normalized again there; one matched in several is, so
    // that no shard's matching can see what another's did with it.
    return { shards, input: shards.length === 1 ? { ...row, normalized } : row };
  });
  inputs.forEach(({ shards }, i) => {
    for (const shard of shards) {
      const own = rowsOf.get(shard);
      if (own === undefined) rowsOf.set(shard, [i]);
      else own.push(i);
    }
  });
  const found: MatchOutcome[][] = rows.map(() => []);
  for (const shard of [...rowsOf.keys()].sort((a, b) => a - b)) {
    const at = rowsOf.get(shard)!;
    const hand = shardAt(shard);
    const outcomes = await hand.matcher.matchBatch(
      at.map((i) => inputs[i]!.input),
      options,
    );
    at.forEach((i, k) => {
      const line = chunkOutcomeOf(rows[i]!.row, outcomes[k]!, hand.voters, hand.columns);
      found[i]!.push(outcomeOfLine(line));
    });
  }
  return found.map((outcomes, i) => {
    if (outcomes.length === 0) throw new Error(`row ${rows[i]!.row} was routed to no shard`);
    return mergeOutcomes(outcomes, options.maxMatches, thresholdScore);
  });
}

/** One block through the one pass where it runs (a matching thread): parse, route, match, merge, format. */
export async function matchShardedBlock(
  block: CsvBlock,
  spec: BlockSpec,
  route: (row: MatchInput, normalized: NormalizedInput) => Route,
  shardAt: (shard: number) => ShardAtHand,
  thresholdScore: number,
): Promise<ShardedBlock> {
  const routing = noRouting();
  const matcher: Matcher = {
    name: 'sharded',
    matchBatch: (rows, options) => matchRoutedRows(rows, options, route, shardAt, routing, thresholdScore),
  };
  return { result: await matchBlock(block, spec, matcher, null), routing };
}

/** Runs the one pass's blocks on worker threads that hold every shard. */
export interface ShardedBlockRunner {
  readonly parallelism: number;
  run(block: CsvBlock, spec: BlockSpec): Promise<ShardedBlock>;
}

/**
 * The one pass's matcher for matchList: rows matched here through the shards' matchers, or whole
 * blocks on `threads`. `routing()` sums how the rows were routed.
 */
export function shardedListMatcher(
  route: (row: MatchInput, normalized: NormalizedInput) => Route,
  shardAt: (shard: number) => ShardAtHand,
  thresholdScore: number,
  threads?: ShardedBlockRunner,
): ListMatcher & { routing(): ShardRouting } {
  const routing = noRouting();
  return {
    name: 'sharded',
    routing: () => ({ ...routing }),
    matchBatch: (rows, options) => matchRoutedRows(rows, options, route, shardAt, routing, thresholdScore),
    ...(threads === undefined
      ? {}
      : {
          blocks: {
            parallelism: threads.parallelism,
            // The job's model was fitted before (sampleOfShards).
            prepare: async () => {},
            run: async (block, spec) => {
              const done = await threads.run(block, spec);
              routing.rows += done.routing.rows;
              routing.shardRows += done.routing.shardRows;
              routing.everywhere += done.routing.everywhere;
              return done.result;
            },
          } satisfies BlockRunner,
        }),
  };
}

/** Thrown by the first pass's matcher to stop reading once the sample is complete. */
class SampleComplete extends Error {}

export interface ShardSampleInput {
  source: AsyncIterable<Uint8Array>;
  voters: VoterSnapshot;
  appendedFields: readonly AppendedField[];
  maxRowBytes: number;
  asOf: Date;
  /** A row's shards, from its raw cells (routeOf). */
  route: (row: MatchInput) => Route;
  shards: number;
  sampleRows?: number;
}

/**
 * The first pass: the list read (and checked, as any list) up to the row that fills a shard's
 * sample, to find the fit shard (FitShard) and its first SAMPLE_ROWS rows, which the split would
 * have written first into that shard's first chunk. A list where no shard's part is that long is
 * read whole. `fitShard` is null for a list without data rows.
 */
export async function sampleOfShards(
  input: ShardSampleInput,
): Promise<{ fitShard: number | null; sample: MatchInput[] }> {
  const sampleRows = input.sampleRows ?? SAMPLE_ROWS;
  const fit = new FitShard(input.shards, sampleRows);
  const rowsOf: MatchInput[][] = Array.from({ length: input.shards }, () => []);
  let complete = false;
  const sampler: Matcher = {
    name: 'sampling',
    matchBatch: async (rows) => {
      for (const row of rows) {
        // Blocks already handed out after the one that completed the sample.
        if (complete) break;
        const { shards } = input.route(row);
        for (const shard of shards) {
          const own = rowsOf[shard]!;
          if (own.length < sampleRows) own.push(row);
        }
        complete = fit.add(shards);
      }
      // Stops matchList: the rest of the list is not needed.
      if (complete) throw new SampleComplete();
      return rows.map(() => ({ candidates: [] }));
    },
  };
  try {
    await matchList({
      source: input.source,
      matcher: sampler,
      voters: input.voters,
      appendedFields: input.appendedFields,
      maxMatches: 1,
      searchRadiusMiles: null,
      maxRowBytes: input.maxRowBytes,
      asOf: input.asOf,
    });
  } catch (error) {
    if (!(error instanceof SampleComplete)) throw error;
  }
  const fitShard = fit.shard;
  return { fitShard, sample: fitShard === null ? [] : rowsOf[fitShard]! };
}

/**
 * Loads every shard of a sharded voter file, for the one pass; `onLoaded` is told of each (to open
 * it on the matching threads meanwhile).
 */
export async function loadEveryShard(
  voters: VoterStore,
  map: ShardMap,
  onLoaded?: (shard: VoterSnapshot) => void,
): Promise<VoterSnapshot[]> {
  const snapshots: VoterSnapshot[] = [];
  for (const shard of map.shards) {
    const snapshot = await voters.open(shard.version);
    if (snapshot === null) throw new Error(`shard ${shard.id} of the voter file is missing`);
    onLoaded?.(snapshot);
    snapshots.push(snapshot);
  }
  return snapshots;
}

/** What the one pass needs besides the list it then matches (matchList with its matcher). */
export interface OnePassInput {
  /** The sharded voter file: its map and directory. */
  whole: VoterSnapshot;
  /** Its shards, loaded, in map order (loadEveryShard). */
  shards: readonly VoterSnapshot[];
  /** A shard's matcher: to be fitted (null), or with the job's fit. */
  createMatcher: (shard: VoterSnapshot, listFit: ListFit | null) => ListMatcher;
  /** The list, read for the sample up to the row that fills it. */
  sampleSource: AsyncIterable<Uint8Array>;
  appendedFields: readonly AppendedField[];
  options: MatchOptions;
  /** The job's threshold: the shards' candidates, weighed together, are held to it again (mergeOutcomes). */
  thresholdScore: number;
  maxRowBytes: number;
  /** Rows of the sample (SAMPLE_ROWS; fewer in tests). */
  sampleRows?: number;
  /**
   * Runs whole blocks on the matching threads, given every shard with its matcher (undefined:
   * on the calling thread).
   */
  threads?: (
    map: ShardMap,
    directory: ShardDirectory | null,
    shards: readonly (ShardAtHand & { matcher: ListMatcher })[],
  ) => (ShardedBlockRunner & { close(): void }) | undefined;
}

/** The one pass's matcher for matchList; `close` when the list is done, whatever happened. */
export type OnePassMatcher = ListMatcher & { routing(): ShardRouting; close(): void };

/**
 * Prepares the one pass: the sample read (sampleOfShards), the job's model fitted on the fit
 * shard as the service's fit chunk fits it, every shard's matcher made with it. The list is then
 * matched by matchList with the returned matcher, from its first row.
 */
export async function prepareOnePass(input: OnePassInput): Promise<OnePassMatcher> {
  const map = input.whole.shardMap;
  if (map === undefined) throw new Error('the one pass needs a sharded voter file');
  const directory = input.whole.shardDirectory ?? null;
  const { fitShard, sample } = await sampleOfShards({
    source: input.sampleSource,
    voters: input.whole,
    appendedFields: input.appendedFields,
    maxRowBytes: input.maxRowBytes,
    asOf: input.options.asOf,
    route: (row) => routeOf(row, input.options.asOf, map, directory),
    shards: map.shards.length,
    ...(input.sampleRows === undefined ? {} : { sampleRows: input.sampleRows }),
  });
  // A list without data rows matches nowhere: nothing is fitted.
  let hands: (ShardAtHand & { matcher: ListMatcher })[] = [];
  if (fitShard !== null) {
    const fitMatcher = input.createMatcher(input.shards[fitShard]!, null);
    const listFit = await fitListOn(fitMatcher, sample, input.options);
    const sources = input.appendedFields.map((field) => field.source);
    hands = input.shards.map((voters, i) => ({
      voters,
      matcher: i === fitShard ? fitMatcher : input.createMatcher(voters, listFit),
      columns: chunkColumns(voters, sources),
    }));
  }
  const shardAt = (shard: number): ShardAtHand => {
    const hand = hands[shard];
    if (hand === undefined) throw new Error(`shard ${shard} of the voter file is not open`);
    return hand;
  };
  const threads = hands.length === 0 ? undefined : input.threads?.(map, directory, hands);
  // The list's rows are normalized anyway to be matched: routed from that.
  const route = (row: MatchInput, normalized: NormalizedInput) =>
    routeNormalized(row, normalized, map, directory);
  return {
    ...shardedListMatcher(route, shardAt, input.thresholdScore, threads),
    close: () => threads?.close(),
  };
}
