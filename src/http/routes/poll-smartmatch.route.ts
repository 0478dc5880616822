import type { FastifyInstance, FastifyRequest } from 'fastify';
import { apiKeyOf } from '../client-api-scope.ts';
import type { HttpDeps } from '../http-deps.ts';
import { parseParams } from '../request-helpers.ts';
import { pollQuerySchema } from '../schemas/smartmatch.schema.ts';

/**
 * `GET /service/smartmatch/poll`: blank url while the job runs, the presigned result URL once it
 * is complete (the same on later polls), `error` once it failed. Always 200 for a known job.
 */
export function pollSmartmatchRoute(app: FastifyInstance, deps: HttpDeps): void {
  // Polls are limited per job: the filename is read (and checked) before the limit.
  const rateLimit = async (request: FastifyRequest, keyId: string) =>
    await deps.rateLimits.checkPoll(keyId, parseParams(pollQuerySchema, request.query).filename);
  app.get('/service/smartmatch/poll', { config: { refusalsAnswer200: true, rateLimit } }, async (request) => {
    const key = apiKeyOf(request);
    const { filename } = parseParams(pollQuerySchema, request.query);
    const answer = await deps.jobs.poll(key, filename);
    return answer;
  });
}
