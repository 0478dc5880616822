import type { FastifyBaseLogger } from 'fastify';
import type { Retention } from '../domain/client-jobs/retention.ts';
import type { FileDrop } from '../domain/ports/file-drop.ts';
import type { Mailer } from '../domain/ports/mailer.ts';
import type { StorageBackends } from './backends.ts';

/** One background clean-up of the worker's housekeeping pass: how many things it removed. */
export interface Sweep {
  run(): Promise<number>;
  /** Logged with the count when it removed something, under `field` (default `removed`). */
  done: string;
  field?: 'removed' | 'expired';
  /** Logged with the error when it failed. */
  failed: string;
}

const DAY_MS = 24 * 3600_000;

/**
 * The sweeps of each housekeeping pass: files past retention (jobs' and the folders'), then the
 * partial files of writes cut short by a crash in storage, the outbox and the file drop.
 */
export function housekeepingSweeps(parts: {
  retention: Pick<Retention, 'run' | 'sweepFolders'>;
  storage: Pick<StorageBackends, 'sweepTemporary'>;
  mailer: Pick<Mailer, 'sweepTemporary'>;
  drop: Pick<FileDrop, 'sweepTemporary'>;
}): Sweep[] {
  const { retention, storage, mailer, drop } = parts;
  return [
    {
      run: () => retention.run(),
      done: 'deleted the files of jobs past retention',
      field: 'expired',
      failed: 'retention pass failed',
    },
    {
      run: () => retention.sweepFolders(),
      done: 'deleted folder files past retention',
      failed: 'folder retention sweep failed',
    },
    // Partial files of writes cut short by a crash (also swept at start): those of a process that
    // is gone, which may be another one sharing DATA_DIR.
    {
      run: () => storage.sweepTemporary(),
      done: 'removed stale temporary files',
      failed: 'temporary file sweep failed',
    },
    {
      run: () => mailer.sweepTemporary?.(DAY_MS) ?? Promise.resolve(0),
      done: 'removed partial outbox messages',
      failed: 'outbox sweep failed',
    },
    {
      run: () => drop.sweepTemporary?.(DAY_MS) ?? Promise.resolve(0),
      done: 'removed stale partial deliveries',
      failed: 'partial delivery sweep failed',
    },
  ];
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
