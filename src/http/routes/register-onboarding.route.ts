import type { FastifyInstance } from 'fastify';
import { apiKeyOf } from '../client-api-scope.ts';
import type { HttpDeps } from '../http-deps.ts';
import { bodyDeadlineOf, hasBody, parseParams, readJsonParams } from '../request-helpers.ts';
import { onboardingQuerySchema } from '../schemas/onboarding.schema.ts';

/**
 * `GET /service/onboarding`: registers an audience-onboarding job and answers its upload URL.
 * Audience building is not implemented yet: an uploaded file is stored and its job waits in
 * `uploaded`.
 */
export function registerOnboardingRoute(app: FastifyInstance, deps: HttpDeps): void {
  const rateLimit = async (_request: unknown, keyId: string) => await deps.rateLimits.checkOnboarding(keyId);
  app.get('/service/onboarding', { config: { refusalsAnswer200: true, rateLimit } }, async (request) => {
    const key = apiKeyOf(request);
    let query = request.query as Record<string, unknown>;
    if (query['platform'] === undefined && hasBody(request.raw)) {
      query = { ...(await readJsonParams(request.raw, bodyDeadlineOf(deps.config))), ...query };
    }
    const params = parseParams(onboardingQuerySchema, query);
    const { url } = await deps.jobs.registerOnboarding(key, {
      platform: params.platform,
      audience: params.audience,
      statusEmail: params.status_email,
      socialAdid: params.social_adid ?? null,
      ownerAdid: params.owner_adid ?? null,
    });
    return { url, error: null };
  });
}
