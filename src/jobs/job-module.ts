import { z } from 'zod';
import type { JobRef } from '../domain/ports/job-catalog.ts';

export interface JobContext {
  /** 1 on the first delivery. */
  attempt: number;
  isFinalAttempt: boolean;
  /** Aborted when the worker shuts down or loses the lease: stop and let the job run again. */
  signal: AbortSignal;
}

/** One job type: its name, versioned payload schema, retry policy and handler. */
export interface JobModule<P = unknown> {
  type: string;
  payload: z.ZodType<P>;
  /** Delay before attempt `attempt + 1`. How many attempts a message gets is set when it is enqueued. */
  backoffMs(attempt: number): number;
  handle(payload: P, context: JobContext): Promise<void>;
  /** Called once when the message is dead-lettered, to record the failure where clients see it. */
  onGiveUp?(payload: P, error: unknown): Promise<void> | void;
}

export const exponentialBackoff =
  (baseMs: number, maxMs: number) =>
  (attempt: number): number =>
    Math.min(maxMs, baseMs * 2 ** (attempt - 1));

/** The payload of the jobs that work on one client job (the catalog's JobRef), parsed. */
export const jobRefSchema: z.ZodType<JobRef> = z.object({
  v: z.literal(1),
  jobId: z.string().startsWith('job_'),
});
