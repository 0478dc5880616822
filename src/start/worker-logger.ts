import type { FastifyBaseLogger } from 'fastify';

/**
 * The worker's logger, for what is built before the worker (the job handlers, the SFTP drop):
 * createWorker sets it. Handlers run only inside a worker, so asking for it before is a bug.
 */
export class WorkerLogger {
  private logger: FastifyBaseLogger | null = null;

  set(logger: FastifyBaseLogger): void {
    this.logger = logger;
  }

  /** The logger, or null while no worker exists (a log line then has nowhere to go). */
  current(): FastifyBaseLogger | null {
    return this.logger;
  }

  /** The logger; throws while no worker exists. */
  get(): FastifyBaseLogger {
    if (this.logger === null)
      throw new Error('the worker logger was used before createWorker built a worker');
    return this.logger;
  }
}
