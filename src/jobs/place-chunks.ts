import { Readable } from 'node:stream';
import type { SmartmatchJob } from '../domain/client-jobs/job-types.ts';
import {
  chunkParts,
  combinePlaces,
  type PlaceRadius,
  placedLines,
} from '../domain/list-matching/chunks/place-chunk.ts';
import { isReachChunk, reachChunkName, shardOfChunk } from '../domain/list-matching/chunks/split-list.ts';
import { LineBuffer } from '../domain/list-matching/line-buffer.ts';
import type { ListRun } from '../domain/list-matching/list-run.ts';
import type { BlobWriter } from '../domain/ports/blob-store.ts';
import type { ChunkSpec } from '../domain/ports/job-catalog.ts';
import type { QueueMessage } from '../domain/ports/queue.ts';
import { nearShards, type ShardMap } from '../domain/voters/shard-map.ts';
import type { VoterSnapshot } from '../domain/voters/voter-snapshot.ts';
import { blobLines } from './blob-lines.ts';
import {
  chunkInputKey,
  chunkMessage,
  chunkPartsKey,
  chunkPlacesKey,
  evidenceMessage,
  placedKey,
  startChunkProgress,
} from './list-chunks.ts';
import type { MatchListDeps } from './list-job-steps.ts';

/**
 * The queue's place steps (domain/list-matching/chunks/place-chunk.ts), between the split and the
 * evidence steps: each chunk's shard writes its part of its rows' places; the step that finds
 * every chunk's parts written combines them into each chunk's places and the shards' reach
 * chunks, then enqueues the evidence steps and marks the places combined. Two that finish
 * together may both combine (the same blobs, and each next step enqueued twice, which writes the
 * same results), as may one delivered again before the mark; after it, a step does nothing.
 */

type PlaceDeps = Pick<MatchListDeps, 'blobs' | 'jobs'> & {
  enqueue: (message: QueueMessage) => Promise<void>;
};

/** A chunk's place step: its shard's part of its rows' places (`shard`: the chunk's shard, open). */
export async function placeChunk(
  deps: PlaceDeps,
  job: SmartmatchJob,
  spec: ChunkSpec & { chunk: string },
  run: ListRun,
  map: ShardMap,
  shard: VoterSnapshot,
): Promise<void> {
  // A step delivered again after the places were combined and the next steps enqueued: done.
  if ((await deps.blobs.stat(placedKey(job.id))) !== null) return;
  // A voter file without a match index (a matcher of its own) places nothing, as in one process.
  const radius: PlaceRadius | null =
    shard.matchIndex === null
      ? null
      : {
          index: shard.matchIndex,
          near: (lat, lon, miles) => nearShards(map, lat, lon, miles),
          miles: run.searchRadiusMiles,
          asOf: new Date(run.asOf),
        };
  const writer = await deps.blobs.openWriter(chunkPartsKey(job.id, spec.chunk));
  const out = new LineBuffer(writer.stream);
  try {
    if (radius !== null) {
      await chunkParts({
        lines: blobLines(deps.blobs, chunkInputKey(job.id, spec.chunk)),
        shard: shardNumber(map, spec.chunk),
        radius,
        out,
      });
    }
    await out.end();
    await writer.commit();
  } catch (error) {
    await writer.abort().catch(() => {});
    throw error;
  }
  for (const chunk of spec.chunks) {
    if ((await deps.blobs.stat(chunkPartsKey(job.id, chunk))) === null) return;
  }
  const { chunk: _chunk, step: _step, ...whole } = spec as ChunkSpec & { chunk: string; step?: string };
  const { spec: placed, reachRows } = await combine(deps, job, whole, map, radius);
  // Poll's progress counts the reach chunks' rows too (nothing is matched yet).
  if (reachRows > 0 && whole.routing !== undefined)
    await startChunkProgress(deps, job, whole.routing.rows, whole.routing.shardRows + reachRows);
  // The split gives every list with rows a sample; without one, each chunk fits on its own rows.
  const followUps =
    placed.sample === undefined || placed.sample.chunks.length === 0
      ? placed.chunks.map((chunk) => chunkMessage(job, placed, chunk))
      : placed.sample.chunks.map((chunk) => evidenceMessage(job, placed, chunk));
  for (const message of followUps) await deps.enqueue(message);
  await deps.blobs.put(placedKey(job.id), Readable.from([Buffer.from('{}')]));
  // The parts are combined: they go (a reach row's part holds its cells).
  for (const chunk of whole.chunks) await deps.blobs.delete(chunkPartsKey(job.id, chunk));
}

/** The chunks' parts combined: each chunk's places and the reach chunks written; the spec that reads them. */
async function combine(
  deps: PlaceDeps,
  job: SmartmatchJob,
  spec: ChunkSpec,
  map: ShardMap,
  radius: PlaceRadius | null,
): Promise<{ spec: ChunkSpec; reachRows: number }> {
  const places = new Map<string, { writer: BlobWriter; sink: LineBuffer }>();
  // Every shard's reach chunk is opened; those no row reaches are not kept.
  const reach = new Map<number, { writer: BlobWriter; sink: LineBuffer }>();
  const open = async (key: string) => {
    const writer = await deps.blobs.openWriter(key);
    return { writer, sink: new LineBuffer(writer.stream) };
  };
  const all = () => [...places.values(), ...reach.values()];
  try {
    for (const chunk of spec.chunks) places.set(chunk, await open(chunkPlacesKey(job.id, chunk)));
    for (let shard = 0; shard < map.shards.length; shard++)
      reach.set(shard, await open(chunkInputKey(job.id, reachChunkName(map.shards[shard]!.id))));
    const result = await combinePlaces({
      chunks: spec.chunks.map((name) => ({ name, shard: shardNumber(map, name) })),
      partsOf: (chunk) => blobLines(deps.blobs, chunkPartsKey(job.id, chunk)),
      places: (chunk) => places.get(chunk)!.sink,
      reach: (shard) => reach.get(shard)!.sink,
      ready: async () => {
        for (const { sink } of all()) await sink.ready();
      },
      radius,
    });
    for (const { sink } of all()) await sink.end();
    for (const { writer } of places.values()) await writer.commit();
    for (const [shard, { writer }] of reach) {
      if (result.reached.has(shard)) await writer.commit();
      else await writer.abort();
    }
    // The reach chunks join the chunks after their shard's others; those holding rows of the
    // sample are weighed for the fit too.
    const reachedChunks = (shards: readonly number[]) =>
      shards.map((shard) => reachChunkName(map.shards[shard]!.id));
    const lastSampleRow = spec.sample?.rows.at(-1) ?? 0;
    const sampled = [...result.reached].filter(([, row]) => row <= lastSampleRow).map(([shard]) => shard);
    const placed: ChunkSpec = {
      ...spec,
      placed: true,
      chunks: orderChunks([...spec.chunks, ...reachedChunks([...result.reached.keys()])], map),
      ...(spec.sample === undefined
        ? {}
        : {
            sample: {
              rows: spec.sample.rows,
              chunks: orderChunks([...spec.sample.chunks, ...reachedChunks(sampled)], map),
            },
          }),
    };
    return { spec: placed, reachRows: result.reachRows };
  } catch (error) {
    for (const { writer } of all()) await writer.abort().catch(() => {});
    throw error;
  }
}

/** Chunks in map order, a shard's in the order given, its reach chunk after them. */
function orderChunks(chunks: readonly string[], map: ShardMap): string[] {
  const position = (chunk: string) => shardNumber(map, chunk) * 2 + (isReachChunk(chunk) ? 1 : 0);
  return chunks
    .map((chunk, i) => ({ chunk, i }))
    .sort((a, b) => position(a.chunk) - position(b.chunk) || a.i - b.i)
    .map(({ chunk }) => chunk);
}

/** A chunk's shard's number in the map. */
function shardNumber(map: ShardMap, chunk: string): number {
  const id = shardOfChunk(chunk);
  const at = map.shards.findIndex((shard) => shard.id === id);
  if (at < 0) throw new Error(`chunk ${chunk} names no shard of the voter file`);
  return at;
}

/**
 * A chunk's input lines as its evidence and match steps read them: with its places beside them
 * once the place steps ran (`spec.placed`; a reach chunk's rows carry theirs).
 */
export function chunkLines(
  deps: Pick<MatchListDeps, 'blobs'>,
  jobId: string,
  spec: ChunkSpec,
  chunk: string,
) {
  const lines = blobLines(deps.blobs, chunkInputKey(jobId, chunk));
  if (spec.placed !== true || isReachChunk(chunk)) return lines;
  return placedLines(lines, blobLines(deps.blobs, chunkPlacesKey(jobId, chunk)));
}
