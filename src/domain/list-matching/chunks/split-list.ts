/**
 * The queue's steps for a list against a sharded voter file whose shards live on several workers:
 * split (this file: each row written to a chunk of every shard it is routed to), match
 * (match-chunk.ts: each chunk against its shard's snapshot, alone) and assemble
 * (assemble-list.ts: the upload read again, each row's outcomes merged, written as a list matched
 * in one process is). Chunks are JSON lines, in input row order. The steps run the same stages
 * as matchList (block-stages.ts), so the result is the same bytes.
 */
import type { VoterSnapshot } from '../../voters/voter-snapshot.ts';
import type { BlockExecutor } from '../block-executor.ts';
import { rowOfLine } from '../chunk-lines.ts';
import { type ListRun, withOutputs } from '../list-run.ts';
import { runPass } from '../pipeline.ts';
import { sampleRowsOf } from '../stages/cut.ts';
import { addRouting, noRouting, type RoutingCounts } from '../stages/route.ts';

/**
 * Default rows per chunk: a shard's part of a list is cut into chunks of at most this many
 * rows, so that several workers share one big state. Never below the sample's rows: each shard's
 * part of the sample (the list's first rows) then lies in its first chunk.
 */
export const DEFAULT_CHUNK_ROWS = 50_000;

/** A chunk's name: the shard's id for its first chunk (`nc`), then `nc.1`, `nc.2`, … */
export const chunkName = (shardId: string, n: number) => (n === 0 ? shardId : `${shardId}.${n}`);

/** The shard a chunk belongs to, and the name of the shard's first chunk (where its sample is). */
export const shardOfChunk = (chunk: string) => chunk.split('.')[0]!;

/**
 * A shard's reach chunk (`nc.r`): rows of other shards whose radius search reaches it, in row
 * order, their places inline (place-chunk.ts combinePlaces).
 */
export const reachChunkName = (shardId: string) => `${shardId}.r`;
export const isReachChunk = (chunk: string) => chunk.endsWith('.r');

/**
 * Chunk names grouped into the assembly's streams, in the order given (map order, then chunk
 * order, a shard's reach chunk after its others): a shard's chunks one after the other (each
 * holds a later part of its rows), its reach chunk alone (rows from anywhere in the list). A row
 * is in one stream of a shard at most: the streams give a row's outcomes in shard order.
 */
export function chunksByShard(chunks: readonly string[]): string[][] {
  const groups: string[][] = [];
  for (const chunk of chunks) {
    const last = groups.at(-1);
    if (
      last !== undefined &&
      !isReachChunk(chunk) &&
      !isReachChunk(last[0]!) &&
      shardOfChunk(last[0]!) === shardOfChunk(chunk)
    )
      last.push(chunk);
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
  /** Resolves when the sink has room again (awaited after each block). */
  ready(): Promise<void>;
}

export interface SplitInput {
  source: AsyncIterable<Uint8Array>;
  run: ListRun;
  /** The sharded voter file (its columns check the appended fields, as the match does). */
  voters: VoterSnapshot;
  /** Runs the split stage (parse → route) of each block: here, or on the matching threads. */
  executor: BlockExecutor;
  chunkRows: number;
  /** Opens the sink of chunk `n` of shard `shard` (an index into the map). */
  openChunk(shard: number, n: number): Promise<ChunkSink>;
}

/** What the split did: its chunks in map order, then chunk order, and how rows were routed. */
export interface SplitResult extends RoutingCounts {
  chunks: { shard: number; name: string; rows: number }[];
  /**
   * The sample the job's model is fitted on (stages/fit.ts): the list's first rows (their
   * numbers), and the first chunk of each shard some of them went to, where they are.
   */
  sample: { rows: number[]; chunks: string[] };
}

/**
 * The split step: every block parsed and routed (split stage), each row written, in input order,
 * to a chunk of each shard it is routed to. It checks the file as every pass does.
 */
export async function splitList(input: SplitInput): Promise<SplitResult> {
  const map = input.voters.shardMap;
  if (map === undefined) throw new Error('only a sharded voter file is split');
  const open: ({ sink: ChunkSink; rows: number; index: number } | null)[] = map.shards.map(() => null);
  const chunks: SplitResult['chunks'] = [];
  const sinks: ChunkSink[] = [];
  const routing = noRouting();
  let chunkRows = input.chunkRows;
  let sampleRows: number | null = null;
  const sample: number[] = [];
  const sampleShards = new Set<number>();
  const chunkFor = async (shard: number) => {
    let current = open[shard]!;
    if (current === null || current.rows >= chunkRows) {
      const n = current === null ? 0 : chunks.filter((c) => c.shard === shard).length;
      const sink = await input.openChunk(shard, n);
      sinks.push(sink);
      chunks.push({ shard, name: chunkName(map.shards[shard]!.id, n), rows: 0 });
      current = { sink, rows: 0, index: chunks.length - 1 };
      open[shard] = current;
    }
    current.rows++;
    chunks[current.index]!.rows++;
    return current.sink;
  };
  await runPass({
    source: input.source,
    run: withOutputs(input.run, {}),
    voters: input.voters,
    executor: input.executor,
    onBlock: async (output, spec) => {
      if (sampleRows === null) {
        sampleRows = sampleRowsOf(spec);
        // Each shard's part of the sample must lie in its first chunk.
        chunkRows = Math.max(chunkRows, sampleRows);
      }
      addRouting(routing, output.routing!);
      for (const { line, shards } of output.routed!) {
        if (sample.length < sampleRows) {
          sample.push(rowOfLine(line));
          for (const shard of shards) sampleShards.add(shard);
        }
        for (const shard of shards) (await chunkFor(shard)).write(line);
      }
      for (const sink of sinks) await sink.ready();
      return false;
    },
  });
  return {
    // Map order, then chunk order: the order the assembly reads them in.
    chunks: [...chunks].sort((a, b) => a.shard - b.shard),
    ...routing,
    sample: {
      rows: sample,
      chunks: [...sampleShards].sort((a, b) => a - b).map((shard) => chunkName(map.shards[shard]!.id, 0)),
    },
  };
}
