import { givenUp } from '../domain/client-jobs/job-failures.ts';
import type { SmartmatchJob } from '../domain/client-jobs/job-types.ts';
import { inThread } from '../domain/list-matching/block-executor.ts';
import { splitBlock } from '../domain/list-matching/block-stages.ts';
import {
  chunkName,
  DEFAULT_CHUNK_ROWS,
  shardOfChunk,
  splitList as splitIntoChunks,
} from '../domain/list-matching/chunks/split-list.ts';
import { LineBuffer } from '../domain/list-matching/line-buffer.ts';
import { shardRouter } from '../domain/list-matching/stages/route.ts';
import { type BlobWriter, listPages } from '../domain/ports/blob-store.ts';
import {
  ASSEMBLE_LIST_JOB,
  type ChunkSpec,
  jobMessage,
  MATCH_CHUNK_JOB,
} from '../domain/ports/job-catalog.ts';
import type { QueueMessage } from '../domain/ports/queue.ts';
import type { VoterSnapshot } from '../domain/voters/voter-snapshot.ts';
import { failJob, type JobPlan, type MatchListDeps, runOfJob } from './list-job-steps.ts';

/**
 * The chunks of a list matched against a sharded voter file: written by the split (match-list),
 * matched by `match-chunk.<shard>` (each shard its own queue, so a worker can prefer the shards it
 * holds) and merged by `assemble-list` once the last chunk is done. Chunk blobs hold list rows: they
 * live under the job's work prefix and are deleted when the job ends. Their messages' payloads
 * (ChunkSpec) are in the job catalog (domain/ports/job-catalog.ts).
 */

/** The folder of a job's chunks: everything its sharded steps write, deleted when it ends. */
const chunksPrefix = (jobId: string) => `work/${jobId}/chunks/`;
export const chunkInputKey = (jobId: string, chunk: string) => `${chunksPrefix(jobId)}${chunk}.rows.jsonl`;
export const chunkOutputKey = (jobId: string, chunk: string) =>
  `${chunksPrefix(jobId)}${chunk}.matches.jsonl`;
/** A chunk's shard's part of its rows' places (place-chunks.ts), and its rows' places combined. */
export const chunkPartsKey = (jobId: string, chunk: string) => `${chunksPrefix(jobId)}${chunk}.parts.jsonl`;
export const chunkPlacesKey = (jobId: string, chunk: string) => `${chunksPrefix(jobId)}${chunk}.places.jsonl`;
/** Written once a job's places are combined and its next steps enqueued (place-chunks.ts). */
export const placedKey = (jobId: string) => `${chunksPrefix(jobId)}placed.mark`;
/** What a shard's part of the sample tells the fit (ShardEvidence, JSON). */
export const chunkEvidenceKey = (jobId: string, chunk: string) =>
  `${chunksPrefix(jobId)}${chunk}.evidence.json`;

/**
 * Splits the upload into one chunk per shard (rows routed by routeRow), then enqueues a
 * `match-chunk` message per chunk with the step that records it. Run again after a crash, it
 * writes the same chunks; a chunk matched twice writes the same result.
 */
export async function splitList(
  deps: MatchListDeps,
  job: SmartmatchJob,
  voters: VoterSnapshot,
  plan: JobPlan,
  startedAt: number,
): Promise<void> {
  const map = voters.shardMap!;
  const writers: BlobWriter[] = [];
  const buffers: LineBuffer[] = [];
  const run = runOfJob(deps, job, plan);
  const executor =
    deps.executor.splitBlocks?.(voters) ??
    inThread((block, spec) => splitBlock(block, spec, shardRouter(map, voters.shardDirectory ?? null)));
  try {
    const split = await splitIntoChunks({
      source: await deps.blobs.read(job.uploadBlob!),
      run,
      voters,
      executor,
      chunkRows: deps.chunkRows ?? DEFAULT_CHUNK_ROWS,
      openChunk: async (shard, n) => {
        const writer = await deps.blobs.openWriter(
          chunkInputKey(job.id, chunkName(map.shards[shard]!.id, n)),
        );
        writers.push(writer);
        const buffer = new LineBuffer(writer.stream);
        buffers.push(buffer);
        return buffer;
      },
    });
    for (let i = 0; i < writers.length; i++) {
      await buffers[i]!.end();
      await writers[i]!.commit();
    }
    const { chunks, rows, shardRows, everywhere, sample } = split;
    const spec: ChunkSpec = {
      v: 2,
      jobId: job.id,
      version: voters.version,
      chunks: chunks.map((chunk) => chunk.name),
      routing: { rows, shardRows, everywhere },
      sample,
      run,
      appended: plan.appendedFields,
      threshold: plan.matchThreshold,
      startedAt,
    };
    await startChunkProgress(deps, job, rows, shardRows);
    // A list without data rows has no chunk: it is assembled (header only) at once. Otherwise each
    // chunk's rows are placed first (place-chunks.ts); the last to finish enqueues the evidence
    // steps, whose last fits the job's model and enqueues every chunk with it.
    const followUps: QueueMessage[] =
      chunks.length === 0
        ? [assembleMessage(job, spec)]
        : chunks.map((chunk) => placeMessage(job, spec, chunk.name));
    await deps.jobs.transition(job.id, ['processing'], 'processing', {}, Date.now(), followUps);
  } catch (error) {
    for (const writer of writers) await writer.abort().catch(() => {});
    throw error;
  } finally {
    executor.close?.();
  }
}

/**
 * Poll's progress from here on: the chunks' shard-rows matched (none yet), out of `shardRows`
 * (the split's; the place steps add the reach chunks' rows).
 */
export async function startChunkProgress(
  deps: Pick<MatchListDeps, 'jobs'>,
  job: SmartmatchJob,
  listRows: number,
  shardRows: number,
): Promise<void> {
  const bytes = job.uploadBytes ?? 0;
  await deps.jobs.recordProgress(job.id, {
    rowsMatched: 0,
    bytesRead: bytes,
    bytesTotal: bytes,
    at: Date.now(),
    chunks: { listRows, shardRows, shardRowsMatched: 0 },
  });
}

/**
 * The run a sharded job's step reads: the one the split fixed (in the message), or for a message
 * of an earlier version, the job's with the message's appended fields and threshold.
 */
export function runOfSpec(deps: Pick<MatchListDeps, 'maxRowBytes'>, job: SmartmatchJob, spec: ChunkSpec) {
  return spec.run ?? runOfJob(deps, job, { appendedFields: spec.appended, matchThreshold: spec.threshold });
}

/**
 * The message of one step of a chunk on its shard's queue: `place` writes its shard's part of its
 * rows' places, `evidence` weighs its part of the sample for the job's fit, absent matches it.
 */
function chunkStepMessage(
  job: Pick<SmartmatchJob, 'keyId'>,
  spec: ChunkSpec,
  chunk: string,
  step?: 'place' | 'evidence',
): QueueMessage {
  return jobMessage(MATCH_CHUNK_JOB, step === undefined ? { ...spec, chunk } : { ...spec, chunk, step }, {
    shard: shardOfChunk(chunk),
    group: job.keyId,
  });
}

/** The message that matches one chunk. */
export const chunkMessage = (job: Pick<SmartmatchJob, 'keyId'>, spec: ChunkSpec, chunk: string) =>
  chunkStepMessage(job, spec, chunk);

/** The message that weighs a shard's part of the sample for the job's fit. */
export const evidenceMessage = (job: Pick<SmartmatchJob, 'keyId'>, spec: ChunkSpec, chunk: string) =>
  chunkStepMessage(job, spec, chunk, 'evidence');

/** The message that writes a chunk's shard's part of its rows' places. */
export const placeMessage = (job: Pick<SmartmatchJob, 'keyId'>, spec: ChunkSpec, chunk: string) =>
  chunkStepMessage(job, spec, chunk, 'place');

export function assembleMessage(job: Pick<SmartmatchJob, 'keyId'>, spec: ChunkSpec): QueueMessage {
  return jobMessage(ASSEMBLE_LIST_JOB, spec, { group: job.keyId });
}

/** A sharded job's step gave up: the job fails (as an unsharded one would) and its chunks go. */
export async function giveUpSharded(deps: MatchListDeps, spec: ChunkSpec, error: unknown): Promise<void> {
  await failJob(deps, spec.jobId, givenUp(spec.jobId, error, 'processing failed repeatedly'));
  await deleteChunks(deps, spec.jobId);
}

/**
 * Deletes a job's chunks (after assembly, or when the job failed): every blob under its chunk
 * folder, whichever step wrote it (inputs, reach chunks, parts, places, matches, evidence, the
 * mark), also those of a spec that did not list them yet (a place step giving up).
 */
export async function deleteChunks(deps: Pick<MatchListDeps, 'blobs'>, jobId: string) {
  for await (const page of listPages(deps.blobs, chunksPrefix(jobId))) {
    for (const blob of page) await deps.blobs.delete(blob.key);
  }
}
