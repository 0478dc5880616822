import type { FastifyBaseLogger } from 'fastify';
import { INCOMING_PREFIX, type JobService } from '../domain/client-jobs/job-service.ts';
import { type BlobStore, listPages } from '../domain/ports/blob-store.ts';

/**
 * Notices uploads that clients PUT straight into object storage (S3 mode) by listing the incoming
 * prefix every `intervalMs`, and hands each to the job service, which copies it to the job's own
 * key and starts processing. Several workers may run this at once: taking an upload is a
 * conditional state change, so each is taken once and the others' copies are discarded. The
 * S3-compatible stores we target (Swift's s3api among them) have no bucket notifications that
 * reach us, hence the polling.
 */
export class UploadArrivals {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private readonly options: {
    blobs: BlobStore;
    jobs: JobService;
    logger: FastifyBaseLogger;
    intervalMs: number;
    onAccepted?: (jobId: string, waitedMs: number) => void;
  };

  constructor(options: UploadArrivals['options']) {
    this.options = options;
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops polling and waits for a pass under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /** One pass over the incoming prefix; returns how many uploads started processing. */
  async pass(): Promise<number> {
    const { blobs, jobs, logger } = this.options;
    let accepted = 0;
    for await (const page of listPages(blobs, INCOMING_PREFIX, 500)) {
      for (const object of page) {
        const jobId = jobIdOfIncomingKey(object.key);
        if (jobId === null) {
          // Nothing of ours: a stray object under the prefix is left for the operator.
          continue;
        }
        try {
          const outcome = await jobs.acceptStoredUpload({
            jobId,
            key: object.key,
            bytes: object.bytes,
            arrivedAt: object.modifiedAt,
          });
          if (outcome === 'accepted') {
            accepted++;
            this.options.onAccepted?.(jobId, Date.now() - object.modifiedAt);
          } else {
            logger.info({ jobId, outcome }, 'an upload in object storage was not taken');
          }
        } catch (error) {
          // Left in place for the next pass.
          logger.error({ err: error, jobId }, 'taking an upload from object storage failed');
        }
      }
      if (this.stopped) break;
    }
    return accepted;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.pass()
        .then(
          () => {},
          (error: unknown) =>
            this.options.logger.error({ err: error }, 'listing uploads in object storage failed'),
        )
        .finally(() => {
          this.running = null;
          this.schedule(this.options.intervalMs);
        });
    }, delayMs);
    this.timer.unref();
  }
}

/** `incoming/<jobId>/upload.csv` → jobId; null for any other key. */
export function jobIdOfIncomingKey(key: string): string | null {
  const match = /^incoming\/([A-Za-z0-9_-]{1,64})\/upload\.csv$/.exec(key);
  return match === null ? null : match[1]!;
}
