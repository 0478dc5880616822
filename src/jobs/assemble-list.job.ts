import type { z } from 'zod';
import { revokedBeforeDelivery } from '../domain/client-jobs/job-failures.ts';
import { assembleList } from '../domain/list-matching/chunks/assemble-list.ts';
import { chunksByShard, concatLines } from '../domain/list-matching/chunks/split-list.ts';
import { withOutputs } from '../domain/list-matching/list-run.ts';
import { outputsOf } from '../domain/list-matching/stages/write.ts';
import { ASSEMBLE_LIST_JOB } from '../domain/ports/job-catalog.ts';
import { blobLines } from './blob-lines.ts';
import { exponentialBackoff, type JobModule } from './job-module.ts';
import { chunkOutputKey, deleteChunks, giveUpSharded, runOfSpec } from './list-chunks.ts';
import { failJob, type MatchListDeps, planJob } from './list-job-steps.ts';
import { chunkSpecSchema } from './match-chunk.job.ts';
import { writeResults } from './match-list.job.ts';
import { JobKeyRevoked } from './revoked-keys.ts';

type Payload = z.infer<typeof chunkSpecSchema>;

/**
 * The last step of a list matched against a sharded voter file: reads the upload again with every
 * chunk's matches beside it (all in row order), merges each row's (mergeOutcomes) and writes the
 * result, the archive and the completion exactly as an unsharded job does.
 */
export function assembleListJob(deps: MatchListDeps): JobModule<Payload> {
  return {
    type: ASSEMBLE_LIST_JOB,
    payload: chunkSpecSchema,
    backoffMs: exponentialBackoff(2_000, 60_000),
    async handle(spec, context) {
      const job = await deps.jobs.getJob(spec.jobId);
      if (job === null || job.kind !== 'smartmatch' || job.state !== 'processing') return;
      if ((await deps.keys.activeKey(job.keyId)) === null) {
        // Revoked while the chunks were matched: nothing is merged; the chunks go with the job's files.
        await failJob(deps, job.id, revokedBeforeDelivery());
        return;
      }
      const voters = await deps.voters.open(spec.version);
      if (voters === null) throw new Error(`voter file ${spec.version} is gone`);
      // The split fixed the threshold and the appended columns for every chunk: the result uses them.
      const plan = {
        ...(await planJob(deps, job)),
        matchThreshold: spec.threshold,
        appendedFields: spec.appended,
      };
      // One stream per shard: its chunks one after the other (each holds a later part of the rows).
      const streams = chunksByShard(spec.chunks).map((chunks) =>
        concatLines(chunks.map((chunk) => () => blobLines(deps.blobs, chunkOutputKey(job.id, chunk)))),
      );
      try {
        const run = runOfSpec(deps, job, spec);
        const threads = deps.executor.assembleBlocks?.();
        await writeResults(deps, job, voters, plan, {
          started: new Date(spec.startedAt),
          replaced: false,
          run: async (sinks) => {
            const summary = await assembleList({
              source: await deps.blobs.read(job.uploadBlob!),
              run: withOutputs(run, outputsOf(sinks)),
              voters,
              sinks,
              streams,
              ...(threads === undefined ? {} : { threads }),
              onProgress: () => {
                if (context.signal.aborted) throw context.signal.reason;
              },
            });
            return spec.routing === undefined
              ? summary
              : {
                  ...summary,
                  shardRouting: { ...spec.routing, shards: voters.shardMap?.shards.length ?? 0 },
                };
          },
        });
      } catch (error) {
        if (!(error instanceof JobKeyRevoked)) throw error;
        await failJob(deps, job.id, error.reason);
      } finally {
        for (const stream of streams) await stream.return(undefined);
      }
      await deleteChunks(deps, job.id);
    },
    onGiveUp: (spec, error) => giveUpSharded(deps, spec, error),
  };
}
