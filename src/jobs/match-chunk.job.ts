import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { z } from 'zod';
import { revokedBeforeMatching } from '../domain/client-jobs/job-failures.ts';
import type { SmartmatchJob } from '../domain/client-jobs/job-types.ts';
import { AppError } from '../domain/errors.ts';
import { chunkEvidence, fitChunk, matchChunk } from '../domain/list-matching/chunks/match-chunk.ts';
import { isReachChunk, shardOfChunk } from '../domain/list-matching/chunks/split-list.ts';
import { LineBuffer } from '../domain/list-matching/line-buffer.ts';
import { listRun, SAMPLE_ROWS } from '../domain/list-matching/list-run.ts';
import { fitFromShards, givesEvidence, type ShardEvidence } from '../domain/list-matching/stages/fit.ts';
import type { Matcher } from '../domain/matching/matcher.ts';
import { type ChunkSpec, MATCH_CHUNK_JOB } from '../domain/ports/job-catalog.ts';
import type { QueueMessage } from '../domain/ports/queue.ts';
import { exponentialBackoff, type JobModule } from './job-module.ts';
import { ChunkRowsRecorder } from './job-progress.ts';
import {
  assembleMessage,
  chunkEvidenceKey,
  chunkMessage,
  chunkOutputKey,
  giveUpSharded,
  runOfSpec,
} from './list-chunks.ts';
import { failJob, type MatchListDeps } from './list-job-steps.ts';
import { chunkLines, placeChunk } from './place-chunks.ts';

/**
 * A fit enqueued by an earlier version names its prior odds `matchesPerRow` (the same number:
 * the scores' prior odds per voter are it over the file's size).
 */
const fromMatchesPerRow = (value: unknown) => {
  if (typeof value !== 'object' || value === null || !('matchesPerRow' in value)) return value;
  const { matchesPerRow, ...rest } = value as { matchesPerRow: unknown };
  return { priorMatchOdds: matchesPerRow, ...rest };
};

const chunkSpecV2 = z.object({
  v: z.literal(2),
  jobId: z.string().startsWith('job_'),
  version: z.string().min(1),
  chunks: z.array(z.string().min(1)),
  routing: z
    .object({ rows: z.number().int(), shardRows: z.number().int(), everywhere: z.number().int() })
    .optional(),
  sample: z.object({ rows: z.array(z.number().int()), chunks: z.array(z.string().min(1)) }).optional(),
  placed: z.literal(true).optional(),
  fitChunk: z.string().min(1).optional(),
  listFit: z
    .preprocess(
      fromMatchesPerRow,
      z.object({
        layout: z.string().optional(),
        m: z.array(z.number()),
        priorMatchOdds: z.number(),
        source: z.enum(['em', 'prior']),
        emIterations: z.number(),
        relativeOdds: z.number().optional(),
        possibleOdds: z.number().optional(),
        chance: z
          .object({ phone: z.number().nullable(), email: z.number().nullable() })
          .nullable()
          .optional(),
      }),
    )
    .optional(),
  run: z
    .object({
      maxMatches: z.number().int().min(1),
      searchRadiusMiles: z.number().nullable(),
      asOf: z.number(),
      thresholdScore: z.number(),
      appendedFields: z.array(z.object({ source: z.string(), as: z.string() })),
      maxRowBytes: z.number().int().positive(),
      outputs: z.object({ every: z.boolean(), split: z.boolean(), bestIds: z.boolean() }),
      sampleRows: z.number().int().positive(),
    })
    .transform((run) => listRun(run))
    .optional(),
  sampleRows: z.number().int().positive().optional(),
  appended: z.array(z.object({ source: z.string(), as: z.string() })),
  threshold: z.number(),
  startedAt: z.number(),
});

/**
 * A message of the first format (one chunk per shard, named by the shard) reads as the second:
 * its chunks are the shards' first chunks, under the same blob keys.
 */
const fromV1 = (value: unknown) => {
  if (typeof value !== 'object' || value === null || (value as { v?: unknown }).v !== 1) return value;
  const { shards, shard, ...rest } = value as { shards?: unknown; shard?: unknown };
  return { ...rest, v: 2, chunks: shards, ...(shard === undefined ? {} : { chunk: shard }) };
};

export const chunkSpecSchema = z.preprocess(fromV1, chunkSpecV2);
export const chunkPayloadSchema = z.preprocess(
  fromV1,
  chunkSpecV2.extend({ chunk: z.string().min(1), step: z.enum(['place', 'evidence']).optional() }),
);
type Payload = z.infer<typeof chunkPayloadSchema>;

export interface MatchChunkDeps extends MatchListDeps {
  /** Enqueues the assembly once the last chunk is done. */
  enqueue: (message: QueueMessage) => Promise<void>;
  /** Keeps a shard loaded while its chunk runs (see FsVoterStore.pin); returns the release. */
  pinShard?: (version: string) => () => void;
}

/**
 * Matches one chunk of a list against one shard of the voter file (`match-chunk.<shard>`): the
 * shard is opened (fetched from object storage the first time) and kept for the next chunks.
 * Each chunk checks after writing its result whether every chunk of the job is done; the one
 * that finds so enqueues the assembly (two that finish together may both: the assembly completes
 * the job once).
 */
export function matchChunkJob(deps: MatchChunkDeps): JobModule<Payload> {
  return {
    type: MATCH_CHUNK_JOB,
    payload: chunkPayloadSchema,
    backoffMs: exponentialBackoff(2_000, 60_000),
    async handle(payload, context) {
      const job = await deps.jobs.getJob(payload.jobId);
      if (job === null || job.kind !== 'smartmatch' || job.state !== 'processing') return;
      if ((await deps.keys.activeKey(job.keyId)) === null) {
        await failJob(deps, job.id, revokedBeforeMatching());
        return;
      }
      const whole = await deps.voters.open(payload.version);
      const shardId = shardOfChunk(payload.chunk);
      const shard = whole?.shardMap?.shards.find((s) => s.id === shardId);
      if (shard === undefined) {
        throw new AppError('UNAVAILABLE', `shard ${shardId} of voter file ${payload.version} is gone`);
      }
      const unpin = deps.pinShard?.(shard.version) ?? (() => {});
      let spec: ChunkSpec;
      try {
        if (payload.step === 'place') {
          const snapshot = await openShard(deps, payload, shard.version);
          await placeChunk(deps, job, payload, runOfSpec(deps, job, payload), whole!.shardMap!, snapshot);
          return;
        }
        if (payload.step === 'evidence') {
          await weighSample(deps, job, payload, shard.version);
          return;
        }
        spec = await matchShard(deps, job, payload, shard.version, context.signal);
      } finally {
        unpin();
      }
      for (const other of spec.chunks) {
        if ((await deps.blobs.stat(chunkOutputKey(job.id, other))) === null) return;
      }
      await deps.enqueue(assembleMessage(job, spec));
    },
    onGiveUp: (payload, error) => giveUpSharded(deps, payload, error),
  };
}

/**
 * The evidence step: the shard's part of the list's sample weighed for the fit and written
 * beside the chunk. The step that finds every sample chunk's evidence written fits the job's
 * model (fitFromShards) and enqueues every chunk with it; two that finish together may both (a
 * chunk matched twice writes the same result), as may one run again after a crash.
 */
async function weighSample(deps: MatchChunkDeps, job: SmartmatchJob, payload: Payload, shardVersion: string) {
  const snapshot = await openShard(deps, payload, shardVersion);
  const run = runOfSpec(deps, job, payload);
  const sample = payload.sample;
  if (sample === undefined || sample.rows.length === 0) throw new Error('an evidence step without a sample');
  const matcher = deps.executor.matcher(snapshot, null, run);
  if (!givesEvidence(matcher))
    throw new Error('the matcher of a sharded list learns nothing from its sample');
  const evidence = await chunkEvidence(
    matcher,
    chunkLines(deps, job.id, payload, payload.chunk),
    sample.rows.at(-1)!,
    run,
    isReachChunk(payload.chunk),
  );
  await deps.blobs.put(
    chunkEvidenceKey(job.id, payload.chunk),
    Readable.from([Buffer.from(JSON.stringify(evidence))]),
  );
  const shards: ShardEvidence[] = [];
  for (const chunk of sample.chunks) {
    const key = chunkEvidenceKey(job.id, chunk);
    if ((await deps.blobs.stat(key)) === null) return;
    shards.push(JSON.parse(await text(await deps.blobs.read(key))) as ShardEvidence);
  }
  const { chunk: _chunk, step: _step, ...spec } = payload;
  const listFit = fitFromShards(sample.rows, shards);
  for (const chunk of spec.chunks) await deps.enqueue(chunkMessage(job, { ...spec, listFit }, chunk));
}

async function openShard(deps: MatchChunkDeps, payload: Payload, shardVersion: string) {
  const snapshot = await deps.voters.open(shardVersion);
  if (snapshot === null) {
    throw new AppError(
      'UNAVAILABLE',
      `shard ${shardOfChunk(payload.chunk)} of voter file ${payload.version} is gone`,
    );
  }
  return snapshot;
}

/**
 * Matches the chunk against the shard with the job's model and writes its result. A chunk of an
 * earlier version's message without the model (the fit chunk, or one of the first format) fits
 * it on its own first rows first, and the fit chunk enqueues the other chunks with it. Returns
 * the job's spec as the chunks carry it.
 */
async function matchShard(
  deps: MatchChunkDeps,
  job: SmartmatchJob,
  payload: Payload,
  shardVersion: string,
  signal: AbortSignal,
): Promise<ChunkSpec> {
  const snapshot = await openShard(deps, payload, shardVersion);
  const run = runOfSpec(deps, job, payload);
  const { chunk: _chunk, step: _step, ...spec } = payload;
  let matcher: Matcher;
  if (payload.listFit !== undefined) {
    matcher = deps.executor.matcher(snapshot, payload.listFit, run);
  } else {
    // The fit chunk, or a chunk of the first format (each fitted on its own first rows).
    matcher = deps.executor.matcher(snapshot, null, run);
    spec.listFit = await fitChunk(
      matcher,
      chunkLines(deps, job.id, payload, payload.chunk),
      run,
      payload.sampleRows ?? SAMPLE_ROWS,
    );
    if (payload.fitChunk === payload.chunk) {
      for (const chunk of spec.chunks) {
        if (chunk !== payload.chunk) await deps.enqueue(chunkMessage(job, spec, chunk));
      }
    }
  }
  const writer = await deps.blobs.openWriter(chunkOutputKey(job.id, payload.chunk));
  const out = new LineBuffer(writer.stream);
  let reported = 0;
  // Poll's progress: the job's count of rows its chunks have matched.
  const progress = new ChunkRowsRecorder(deps.jobs, job.id);
  try {
    const threads = deps.executor.chunkBatches?.(matcher);
    await matchChunk({
      lines: chunkLines(deps, job.id, payload, payload.chunk),
      shard: snapshot,
      matcher,
      ...(threads === undefined ? {} : { threads }),
      run,
      write: (line) => {
        out.write(line);
        return out.ready();
      },
      onProgress: (rows) => {
        if (signal.aborted) throw signal.reason;
        deps.onRows?.(rows - reported);
        reported = rows;
        progress.rows(rows);
      },
    });
    await out.end();
    await writer.commit();
    await progress.finish();
  } catch (error) {
    await writer.abort();
    throw error;
  }
  return spec;
}
