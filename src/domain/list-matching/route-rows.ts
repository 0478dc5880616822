import type { CsvBlock } from '../csv/csv-blocks.ts';
import type { Matcher, MatchInput } from '../matching/matcher.ts';
import { type NormalizedInput, normalizeInput } from '../matching/normalize/person.ts';
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

/** The shards routeRow picks for a row, from its normalized values (in map order). */
export function routeOf(row: MatchInput, asOf: Date, map: ShardMap, directory: ShardDirectory | null): Route {
  return routeNormalized(row, normalizeInput(row.fields, asOf), map, directory);
}

/** routeOf, for a row already normalized. */
export function routeNormalized(
  row: MatchInput,
  normalized: NormalizedInput,
  map: ShardMap,
  directory: ShardDirectory | null,
): Route {
  const persons = normalized.persons;
  return routeRow(
    map,
    {
      // The normalized values: a state and ZIP written inside the address count too.
      state: persons.find((p) => p.state !== '')?.state ?? row.fields.state,
      zip: persons.find((p) => p.zip !== '')?.zip ?? row.fields.zip,
      voterbaseId: row.fields.voterbase_id,
      latitude: row.fields.latitude,
      longitude: row.fields.longitude,
      phones: persons.flatMap((p) => p.phones),
      emails: persons.flatMap((p) => (p.email === '' ? [] : [p.email])),
      ids: statelessIds(row.fields.voterbase_id ?? '', row.fields.exact_track ?? ''),
      searchableAnywhere: persons.some(
        (p) => p.dob !== null || p.dobTypos.length > 0 || p.birthYears !== null,
      ),
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
