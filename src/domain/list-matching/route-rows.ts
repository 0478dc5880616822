import type { CsvBlock } from '../csv/csv-blocks.ts';
import type { Matcher, MatchInput } from '../matching/matcher.ts';
import {
  type NormalizedInput,
  placeOf,
  placeOfNormalized,
  type RowPlace,
} from '../matching/normalize/person.ts';
import type { ShardDirectory } from '../voters/shard-directory.ts';
import { type Route, routeRow, type ShardMap, statelessIds } from '../voters/shard-map.ts';
import type { ChunkRow } from './chunk-lines.ts';
import { type BlockResult, type BlockSpec, matchBlock } from './match-block.ts';

/**
 * Where the split step of a sharded list sends a row: the shards routeRow picks from its
 * normalized values, and the line each of their chunks gets (the row number and the identifier
 * cells, as JSON). Pure, so the split runs the same on its own thread or on the matching threads.
 */
export interface RoutedRow {
  /** The chunk line, ending in a newline. */
  line: string;
  shards: readonly number[];
  /** Nothing placed it: it goes to every shard. */
  everywhere: boolean;
}

export function routeInput(
  row: MatchInput,
  asOf: Date,
  map: ShardMap,
  directory: ShardDirectory | null,
): RoutedRow {
  const line = `${JSON.stringify({ r: row.row, f: row.fields } satisfies ChunkRow)}\n`;
  return { line, ...routeOf(row, asOf, map, directory) };
}

/**
 * The shards routeRow picks for a row (in map order), from its normalized state, ZIP, phones and
 * e-mail address (placeOf: without normalizing its names or parsing its street).
 */
export function routeOf(row: MatchInput, asOf: Date, map: ShardMap, directory: ShardDirectory | null): Route {
  return routePlaced(row, placeOf(row.fields, asOf), map, directory);
}

/** routeOf, for a row already normalized (the same shards). */
export function routeNormalized(
  row: MatchInput,
  normalized: NormalizedInput,
  map: ShardMap,
  directory: ShardDirectory | null,
): Route {
  return routePlaced(row, placeOfNormalized(normalized), map, directory);
}

function routePlaced(
  row: MatchInput,
  place: RowPlace,
  map: ShardMap,
  directory: ShardDirectory | null,
): Route {
  return routeRow(
    map,
    {
      // The normalized values: a state and ZIP written inside the address count too.
      state: place.state || row.fields.state,
      zip: place.zip || row.fields.zip,
      voterbaseId: row.fields.voterbase_id,
      latitude: row.fields.latitude,
      longitude: row.fields.longitude,
      phones: place.phones,
      emails: place.emails,
      ids: statelessIds(row.fields.voterbase_id ?? '', row.fields.exact_track ?? ''),
      searchableAnywhere: place.dated || place.addressedWithoutState,
    },
    directory,
  );
}

/** A block of the list through the split: its counts and warnings as any block's, and its rows' routes. */
export interface RoutedBlock {
  result: BlockResult;
  routed: RoutedRow[];
}

/**
 * One block of a list routed where it runs (a matching thread): parsed and checked as matchBlock
 * does for any list (no output lines are asked for), each row routed in order.
 */
export async function routeBlock(
  block: CsvBlock,
  spec: BlockSpec,
  map: ShardMap,
  directory: ShardDirectory | null,
): Promise<RoutedBlock> {
  const routed: RoutedRow[] = [];
  const router: Matcher = {
    name: 'routing',
    matchBatch: (rows, options) => {
      for (const row of rows) routed.push(routeInput(row, options.asOf, map, directory));
      return Promise.resolve(rows.map(() => ({ candidates: [] })));
    },
  };
  return { result: await matchBlock(block, spec, router, null), routed };
}

/** Routes the blocks of a list on worker threads that hold the shard map and directory. */
export interface RouteBlockRunner {
  /** Blocks it works on at once. */
  readonly parallelism: number;
  run(block: CsvBlock, spec: BlockSpec): Promise<RoutedBlock>;
}

/** A RouteBlockRunner whose threads let the shard map go on `close`. */
export type ClosableRouteBlockRunner = RouteBlockRunner & { close(): void };
