import type { FastifyBaseLogger } from 'fastify';

/** One background clean-up of the worker's housekeeping pass: how many things it removed. */
export interface Sweep {
  run(): Promise<number>;
  /** Logged with the count when it removed something, under `field` (default `removed`). */
  done: string;
  field?: 'removed' | 'expired';
  /** Logged with the error when it failed. */
  failed: string;
}

/**
 * Starts every sweep without waiting for any (a slow bucket listing never holds up the queue):
 * each logs what it removed, or why it failed, on its own.
 */
export function runSweeps(logger: FastifyBaseLogger, sweeps: readonly Sweep[]): void {
  for (const sweep of sweeps) {
    sweep.run().then(
      (removed) => {
        if (removed > 0) logger.info({ [sweep.field ?? 'removed']: removed }, sweep.done);
      },
      (error: unknown) => logger.error({ err: error }, sweep.failed),
    );
  }
}
