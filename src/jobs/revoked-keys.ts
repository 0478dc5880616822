import type { FastifyBaseLogger } from 'fastify';
import type { AppError } from '../domain/errors.ts';
import type { KeyService } from '../domain/keys/key-service.ts';

/**
 * True when the API key of a job was revoked since it was registered. A revoked key's jobs are
 * not matched and their results go nowhere (no webhook, no folder, no audience): its URLs died
 * with it. The skip is logged with the job and key ids only.
 */
export async function keyRevoked(
  keys: Pick<KeyService, 'activeKey'>,
  job: { id: string; keyId: string },
  skipped: string,
  logger: FastifyBaseLogger,
): Promise<boolean> {
  if ((await keys.activeKey(job.keyId)) !== null) return false;
  logger.info({ jobId: job.id, keyId: job.keyId }, `${skipped}: the API key of the job was revoked`);
  return true;
}

/**
 * Stops a list job at a step boundary (before matching, before its result is published, before
 * its completion and the notices and deliveries that commit with it) when its API key was revoked
 * since the job started. `reason` is what the job fails with.
 */
export class JobKeyRevoked extends Error {
  readonly reason: AppError;

  constructor(reason: AppError) {
    super(reason.message);
    this.name = 'JobKeyRevoked';
    this.reason = reason;
  }
}
