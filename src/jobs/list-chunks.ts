import { isAppError } from '../domain/errors.ts';
import type { SmartmatchJob } from '../domain/jobs/job-types.ts';
import type { AppendedField } from '../domain/keys/key-types.ts';
import { matchList } from '../domain/pipeline/match-list.ts';
import { routingMatcher } from '../domain/pipeline/sharded-list.ts';
import type { BlobWriter } from '../domain/ports/blob-store.ts';
import type { QueueMessage } from '../domain/ports/queue.ts';
import type { ShardMap } from '../domain/voters/shard-map.ts';
import type { VoterSnapshot } from '../domain/voters/voter-snapshot.ts';
import { LineBuffer } from './line-buffer.ts';
import { failJob, type JobPlan, listOptions, type MatchListDeps } from './match-list.job.ts';

/**
 * The chunks of a list matched against a sharded voter file: written by the split (match-list),
 * matched by `match-chunk.<shard>` (each shard its own queue, so a worker can prefer the shards it
 * holds) and merged by `assemble-list` once the last chunk is done. Chunk blobs hold list rows: they
 * live under the job's work prefix and are deleted when the job ends.
 */
export const MATCH_CHUNK_JOB = 'match-chunk';
export const ASSEMBLE_LIST_JOB = 'assemble-list';

/** The queue of one shard's chunks. */
export const matchChunkType = (shard: string) => `${MATCH_CHUNK_JOB}.${shard}`;

export const chunkInputKey = (jobId: string, shard: string) => `work/${jobId}/chunks/${shard}.rows.jsonl`;
export const chunkOutputKey = (jobId: string, shard: string) => `work/${jobId}/chunks/${shard}.matches.jsonl`;

/** What every chunk of a job carries (fixed at the split, so all chunks agree). */
export interface ChunkSpec {
  v: 1;
  jobId: string;
  /** The sharded voter file version the job pinned. */
  version: string;
  /** Shards that got rows, in map order: the chunks the assembly waits for. */
  shards: string[];
  /** Voter columns appended to the result (the profile's when the job was split). */
  appended: AppendedField[];
  threshold: number;
  /** When the job started processing (epoch ms), for the summary's duration. */
  startedAt: number;
}

/**
 * Splits the upload into one chunk per shard (rows routed by routeRow), then enqueues a
 * `match-chunk` message per chunk with the step that records it. Run again after a crash, it
 * writes the same chunks; a chunk matched twice writes the same result.
 */
export async function splitList(
  deps: MatchListDeps,
  job: SmartmatchJob,
  voters: VoterSnapshot,
  map: ShardMap,
  plan: JobPlan,
  startedAt: number,
): Promise<void> {
  const writers: BlobWriter[] = [];
  try {
    for (const shard of map.shards)
      writers.push(await deps.blobs.openWriter(chunkInputKey(job.id, shard.id)));
    const buffers = writers.map((writer) => new LineBuffer(writer.stream));
    const router = routingMatcher(map, buffers);
    await matchList({
      ...listOptions(deps, job, plan.appendedFields),
      source: await deps.blobs.read(job.uploadBlob!),
      matcher: router,
      voters,
    });
    const shards: string[] = [];
    for (let i = 0; i < writers.length; i++) {
      await buffers[i]!.end();
      if (router.rowsPerShard[i]! > 0) {
        await writers[i]!.commit();
        shards.push(map.shards[i]!.id);
      } else await writers[i]!.abort();
    }
    const spec: ChunkSpec = {
      v: 1,
      jobId: job.id,
      version: voters.version,
      shards,
      appended: plan.appendedFields,
      threshold: plan.matchThreshold,
      startedAt,
    };
    // A list without data rows has no chunk: it is assembled (header only) at once.
    const followUps: QueueMessage[] =
      shards.length === 0
        ? [assembleMessage(job, spec)]
        : shards.map((shard) => ({
            type: matchChunkType(shard),
            payload: { ...spec, shard },
            group: job.keyId,
          }));
    await deps.jobs.transition(job.id, ['processing'], 'processing', {}, Date.now(), followUps);
  } catch (error) {
    for (const writer of writers) await writer.abort().catch(() => {});
    throw error;
  }
}

export function assembleMessage(job: Pick<SmartmatchJob, 'keyId'>, spec: ChunkSpec): QueueMessage {
  return { type: ASSEMBLE_LIST_JOB, payload: spec, group: job.keyId };
}

/** A sharded job's step gave up: the job fails (as an unsharded one would) and its chunks go. */
export async function giveUpSharded(deps: MatchListDeps, spec: ChunkSpec, error: unknown): Promise<void> {
  const reference = isAppError(error) ? error.message : 'processing failed repeatedly';
  await failJob(
    deps,
    spec.jobId,
    `Internal Error: ${reference}; the operator can look it up as ${spec.jobId}`,
  );
  await deleteChunks(deps, spec.jobId, spec.shards);
}

/** Deletes a job's chunks (after assembly, or when the job failed). */
export async function deleteChunks(
  deps: Pick<MatchListDeps, 'blobs'>,
  jobId: string,
  shards: readonly string[],
) {
  for (const shard of shards) {
    await deps.blobs.delete(chunkInputKey(jobId, shard));
    await deps.blobs.delete(chunkOutputKey(jobId, shard));
  }
}
