/**
 * A contact list matched against a sharded voter file, in three steps that may run in different
 * processes: split (each row to the chunks of the shards it is routed to), match (each chunk
 * against its shard's snapshot, alone) and assemble (the upload read again, each row's outcomes
 * merged, written as an unsharded job writes). Chunks are JSON lines, in input row order.
 * The embedded service runs the same three steps through its own queue, so both give the same bytes.
 */
import type { ListFit, Matcher, MatchInput, MatchOptions, MatchOutcome } from '../matching/matcher.ts';
import type { ShardDirectory } from '../voters/shard-directory.ts';
import type { ShardMap } from '../voters/shard-map.ts';
import type { VoterSnapshot } from '../voters/voter-snapshot.ts';
import type { BlockRunner, ListMatcher } from './block-runner.ts';
import { type ChunkOutcome, inputOfLine } from './chunk-lines.ts';
import { inTurns } from './in-turn.ts';
import { SAMPLE_ROWS } from './match-list.ts';
import { type RouteBlockRunner, type RoutedRow, routeInput } from './route-rows.ts';

/** Rows matched per batch in a chunk (after the sample, which is prepared on its own). */
export const CHUNK_BATCH_ROWS = 2000;
/** Batches of a chunk on the matching threads at once, while this thread writes the oldest. */
const CHUNK_BATCHES_IN_FLIGHT = 4;
/**
 * Rows per batch when whole batches run on the threads (ChunkBatchRunner): smaller, so that a
 * chunk of a few thousand rows (a small state's part of a list) still keeps every thread busy.
 */
const THREAD_BATCH_ROWS = 500;
/** Batches in flight per thread of a ChunkBatchRunner. */
const THREAD_BATCHES_PER_THREAD = 2;

/**
 * Default rows per chunk: a shard's part of a list is cut into chunks of at most this many
 * rows, so that several workers share one big state. Never below SAMPLE_ROWS: the job's model is
 * fitted on the first SAMPLE_ROWS rows of one shard's part (FitShard), which must lie in that
 * shard's first chunk for the result not to depend on how the list was cut.
 */
export const DEFAULT_CHUNK_ROWS = 50_000;

/** A chunk's name: the shard's id for its first chunk (`nc`), then `nc.1`, `nc.2`, … */
export const chunkName = (shardId: string, n: number) => (n === 0 ? shardId : `${shardId}.${n}`);

/** The shard a chunk belongs to, and the name of the shard's first chunk (where its sample is). */
export const shardOfChunk = (chunk: string) => chunk.split('.')[0]!;

/** Chunk names grouped by shard, in the order given (map order, then chunk order). */
export function chunksByShard(chunks: readonly string[]): string[][] {
  const groups: string[][] = [];
  for (const chunk of chunks) {
    const last = groups.at(-1);
    if (last !== undefined && shardOfChunk(last[0]!) === shardOfChunk(chunk)) last.push(chunk);
    else groups.push([chunk]);
  }
  return groups;
}

/** The lines of several sources, one source after the other, each opened when reached. */
export async function* concatLines(
  sources: readonly (() => AsyncIterable<string>)[],
): AsyncGenerator<string> {
  for (const open of sources) yield* open();
}

/** Where the split writes one chunk (a LineBuffer over a blob or a file). */
export interface ChunkSink {
  write(line: string): void;
  /** Resolves when the sink has room again (awaited after each batch). */
  ready(): Promise<void>;
}

/** How the split routes and cuts (see routeRow and DEFAULT_CHUNK_ROWS). */
export interface RoutingOptions {
  directory: ShardDirectory | null;
  chunkRows: number;
  /** Rows of each shard's sample (default SAMPLE_ROWS): no chunk is cut shorter. */
  sampleRows?: number;
  /** Opens the sink of chunk `n` of shard `shard` (an index into the map). */
  openChunk(shard: number, n: number): Promise<ChunkSink>;
  /** Routes whole blocks on the matching threads; absent: rows are routed on the calling thread. */
  threads?: RouteBlockRunner;
}

/** What the split did: its chunks in map order, then chunk order, and how rows were routed. */
export interface RoutingResult {
  chunks: { shard: number; name: string; rows: number }[];
  /** Data rows read. */
  rows: number;
  /** Rows written to chunks (a row sent to three shards counts three times). */
  shardRows: number;
  /** Rows nothing placed (no state, ZIP, coordinates or directory hit): sent to every shard. */
  everywhere: number;
  /** The chunk the job's model is fitted on (FitShard): its shard's first; null without rows. */
  fitChunk: string | null;
}

/**
 * The split step's matcher: writes every row to a chunk of each shard it is routed to and returns
 * no match. Run through matchList, it validates the file exactly as an unsharded job does.
 */
export function routingMatcher(
  map: ShardMap,
  options: RoutingOptions,
): ListMatcher & { result(): RoutingResult } {
  const chunkRows = Math.max(options.chunkRows, options.sampleRows ?? SAMPLE_ROWS);
  const open: ({ sink: ChunkSink; rows: number; index: number } | null)[] = map.shards.map(() => null);
  const chunks: RoutingResult['chunks'] = [];
  const sinks: ChunkSink[] = [];
  const counts = { rows: 0, shardRows: 0, everywhere: 0 };
  const fitShard = new FitShard(map.shards.length, options.sampleRows ?? SAMPLE_ROWS);
  const chunkFor = async (shard: number) => {
    let current = open[shard]!;
    if (current === null || current.rows >= chunkRows) {
      const n = current === null ? 0 : chunks.filter((c) => c.shard === shard).length;
      const sink = await options.openChunk(shard, n);
      sinks.push(sink);
      chunks.push({ shard, name: chunkName(map.shards[shard]!.id, n), rows: 0 });
      current = { sink, rows: 0, index: chunks.length - 1 };
      open[shard] = current;
    }
    current.rows++;
    chunks[current.index]!.rows++;
    return current.sink;
  };
  /** Writes routed rows to their chunks, in input order (callers take turns: inTurn). */
  const take = async (routed: readonly RoutedRow[]) => {
    for (const { line, shards, everywhere } of routed) {
      counts.rows++;
      counts.shardRows += shards.length;
      if (everywhere) counts.everywhere++;
      fitShard.add(shards);
      for (const shard of shards) (await chunkFor(shard)).write(line);
    }
    for (const sink of sinks) await sink.ready();
  };
  // Batches and blocks take turns, so every chunk holds its rows in input order.
  const inTurn = inTurns();
  const threads = options.threads;
  return {
    name: 'routing',
    result: () => {
      const fit = fitShard.shard;
      return {
        // Map order, then chunk order: the order the assembly reads them in.
        chunks: [...chunks].sort((a, b) => a.shard - b.shard),
        ...counts,
        fitChunk: fit === null ? null : chunkName(map.shards[fit]!.id, 0),
      };
    },
    matchBatch: (rows, matchOptions) =>
      inTurn(async () => {
        await take(rows.map((row) => routeInput(row, matchOptions.asOf, map, options.directory)));
        return rows.map(() => ({ candidates: [] }));
      }),
    ...(threads === undefined
      ? {}
      : {
          blocks: {
            parallelism: threads.parallelism,
            // The split fits nothing.
            prepare: async () => {},
            run: (block, spec) => {
              const running = threads.run(block, spec);
              running.catch(() => {});
              // Routed side by side, written in the order matchList hands the blocks out.
              return inTurn(async () => {
                const { result, routed } = await running;
                await take(routed);
                return result;
              });
            },
          } satisfies BlockRunner,
        }),
  };
}

export interface MatchChunkInput {
  /** The chunk's lines as the split step wrote them. */
  lines: AsyncIterable<string>;
  shard: VoterSnapshot;
  /**
   * Prepared: fitted on the job's sample (fitList), or created with its ListFit. With
   * `chunkBatches`, whole batches run on its threads.
   */
  matcher: ListMatcher;
  /** Voter columns appended to the result, by source name (absent from the shard: ''). */
  appendedSources: readonly string[];
  options: MatchOptions;
  /** Receives the output lines, a batch's at a time, each ending in a newline; waits when the writer is behind. */
  write: (lines: string) => void | Promise<void>;
  onProgress?: (rows: number) => void;
}

/**
 * The shard whose part of a list the job's model is fitted on (its first SAMPLE_ROWS rows are the
 * sample): the first shard whose part reaches the sample's rows, counting rows in input order, so
 * that it is known as soon as they are read; when no part does, the shard with the most rows (the
 * first such in map order). One fit per job, whichever worker runs it: every chunk matches with
 * it (with its own shard's u), so the result does not depend on how the list was cut or where the
 * chunks ran.
 */
export class FitShard {
  readonly #rows: number[];
  readonly #sampleRows: number;
  #first: number | null = null;

  constructor(shards: number, sampleRows = SAMPLE_ROWS) {
    this.#rows = new Array<number>(shards).fill(0);
    this.#sampleRows = sampleRows;
  }

  /** Counts a row sent to `shards` (in map order); true once some shard's part holds the sample. */
  add(shards: readonly number[]): boolean {
    for (const shard of shards) {
      const rows = ++this.#rows[shard]!;
      if (rows === this.#sampleRows && this.#first === null) this.#first = shard;
    }
    return this.#first !== null;
  }

  /** The fit shard of the rows counted so far; null before any. */
  get shard(): number | null {
    if (this.#first !== null) return this.#first;
    let best: number | null = null;
    this.#rows.forEach((rows, shard) => {
      if (rows > 0 && (best === null || rows > this.#rows[best]!)) best = shard;
    });
    return best;
  }
}

/**
 * Fits `matcher` on the first `sampleRows` rows of the fit chunk (FitShard) and returns what
 * it learned about the list, for the other chunks' matchers.
 */
export async function fitList(
  matcher: Matcher,
  sampleLines: AsyncIterable<string>,
  options: MatchOptions,
  sampleRows = SAMPLE_ROWS,
): Promise<ListFit> {
  const sample: MatchInput[] = [];
  for await (const text of sampleLines) {
    sample.push(inputOfLine(text));
    if (sample.length >= sampleRows) break;
  }
  return await fitListOn(matcher, sample, options);
}

/** Fits `matcher` on the sample's rows and returns what it learned about the list. */
export async function fitListOn(
  matcher: Matcher,
  sample: readonly MatchInput[],
  options: MatchOptions,
): Promise<ListFit> {
  await matcher.prepare?.(sample, options);
  const fit = matcher.listFit?.() ?? null;
  if (fit === null) throw new Error('the matcher of a sharded list learned nothing from its sample');
  return fit;
}

/**
 * The match step: one chunk against its shard, batch by batch, several in flight, the output
 * lines written in order. With the matcher's `chunkBatches`, whole batches run on its threads
 * (parse, match, read the candidates' values, write the lines there) and this thread only reads
 * lines and writes answers; otherwise they run here (matchChunkBatch), the matcher's own
 * matching wherever it runs it. Returns the rows matched.
 */
export async function matchChunk(input: MatchChunkInput): Promise<number> {
  const columns = chunkColumns(input.shard, input.appendedSources);
  const threads = input.matcher.chunkBatches;
  const { runner, batchRows, room } =
    threads === undefined
      ? {
          runner: (lines: readonly string[]) =>
            matchChunkBatch(lines, columns, input.matcher, input.shard, input.options),
          batchRows: CHUNK_BATCH_ROWS,
          room: CHUNK_BATCHES_IN_FLIGHT,
        }
      : {
          runner: (lines: readonly string[]) => threads.run(lines, columns, input.options),
          batchRows: THREAD_BATCH_ROWS,
          room: Math.max(1, threads.parallelism) * THREAD_BATCHES_PER_THREAD,
        };
  const inFlight: { rows: number; lines: Promise<string> }[] = [];
  let rows = 0;
  const writeOldest = async () => {
    const oldest = inFlight.shift()!;
    await input.write(await oldest.lines);
    rows += oldest.rows;
    input.onProgress?.(rows);
  };
  const send = (batch: string[]) => {
    const lines = runner(batch);
    // Awaited in order by writeOldest; a failure before its turn must not go unhandled meanwhile.
    lines.catch(() => {});
    inFlight.push({ rows: batch.length, lines });
  };
  try {
    let batch: string[] = [];
    for await (const text of input.lines) {
      batch.push(text);
      if (batch.length < batchRows) continue;
      send(batch);
      batch = [];
      if (inFlight.length >= room) await writeOldest();
    }
    if (batch.length > 0) send(batch);
    while (inFlight.length > 0) await writeOldest();
  } finally {
    inFlight.length = 0;
  }
  return rows;
}

/**
 * One batch of a chunk matched where it runs (this thread, or a matching thread of a
 * ChunkBatchRunner): its output lines.
 */
export async function matchChunkBatch(
  lines: readonly string[],
  columns: readonly number[],
  matcher: Matcher,
  shard: VoterSnapshot,
  options: MatchOptions,
): Promise<string> {
  const rows = chunkInputRows(lines);
  return chunkOutputLines(rows, await matcher.matchBatch(rows, options), shard, columns);
}

/** The shard's columns whose values each candidate carries: voterbase_id, the appended, the state. */
export function chunkColumns(shard: VoterSnapshot, appendedSources: readonly string[]): number[] {
  return [
    shard.columnIndex('voterbase_id'),
    ...appendedSources.map((source) => shard.columnIndex(source)),
    shard.columnIndex('state'),
  ];
}

/** The rows of a chunk's input lines. */
function chunkInputRows(lines: readonly string[]): MatchInput[] {
  return lines.map(inputOfLine);
}

/** A chunk's output lines for rows and their outcomes, each ending in a newline. */
function chunkOutputLines(
  rows: readonly MatchInput[],
  outcomes: readonly MatchOutcome[],
  shard: VoterSnapshot,
  columns: readonly number[],
): string {
  let text = '';
  for (let i = 0; i < rows.length; i++) {
    text += `${JSON.stringify(chunkOutcomeOf(rows[i]!.row, outcomes[i]!, shard, columns))}\n`;
  }
  return text;
}

/** What a chunk's output line holds for a row's outcome in a shard: its candidates with their values. */
export function chunkOutcomeOf(
  row: number,
  outcome: MatchOutcome,
  shard: VoterSnapshot,
  columns: readonly number[],
): ChunkOutcome {
  const weighed = outcome.oddsSum !== undefined && outcome.candidates.every((c) => c.odds !== undefined);
  const line: ChunkOutcome = {
    r: row,
    c: outcome.candidates.map((c) =>
      !weighed
        ? [c.score, c.method, c.explain ?? '', shard.fields(c.voter, columns)]
        : c.maxScore === undefined
          ? [c.score, c.method, c.explain ?? '', shard.fields(c.voter, columns), c.odds!]
          : [
              c.score,
              c.method,
              c.explain ?? '',
              shard.fields(c.voter, columns),
              c.odds!,
              c.maxScore,
              c.minScore ?? 0,
            ],
    ),
  };
  if (outcome.unmatchedReason !== undefined) line.u = outcome.unmatchedReason;
  if (outcome.problems !== undefined && outcome.problems.length > 0) line.p = outcome.problems;
  if (outcome.bestCount !== undefined) line.b = outcome.bestCount;
  if (weighed) line.o = outcome.oddsSum!;
  return line;
}
