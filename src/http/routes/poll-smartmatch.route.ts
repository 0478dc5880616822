import type { FastifyInstance } from 'fastify';
import type { HttpDeps } from '../http-deps.ts';
import { parseParams } from '../request-helpers.ts';
import { pollQuerySchema } from '../schemas/smartmatch.schema.ts';

/**
 * `GET /service/smartmatch/poll`: blank url while the job runs, the presigned result URL once it
 * is complete (the same on later polls), `error` once it failed. Always 200 for a known job.
 */
export function pollSmartmatchRoute(app: FastifyInstance, deps: HttpDeps): void {
  app.get('/service/smartmatch/poll', { config: { refusalsAnswer200: true } }, async (request) => {
    const key = await deps.keys.authenticate(request.headers['x-api-key']);
    const { filename } = parseParams(pollQuerySchema, request.query);
    await deps.rateLimits.checkPoll(key.id, filename);
    const answer = await deps.jobs.poll(key, filename);
    return { url: answer.url, error: answer.error, status: answer.status };
  });
}
