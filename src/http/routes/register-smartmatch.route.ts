import type { FastifyInstance } from 'fastify';
import type { ContactField } from '../../domain/keys/key-types.ts';
import { apiKeyOf } from '../client-api-scope.ts';
import type { HttpDeps } from '../http-deps.ts';
import { bodyDeadlineOf, hasBody, parseParams, readJsonParams } from '../request-helpers.ts';
import { type SmartmatchQuery, smartmatchQuerySchema } from '../schemas/smartmatch.schema.ts';

/** `GET /service/smartmatch`: registers a list-matching job and answers its presigned upload URL. */
export function registerSmartmatchRoute(app: FastifyInstance, deps: HttpDeps): void {
  const rateLimit = async (_request: unknown, keyId: string) =>
    await deps.rateLimits.checkRegistration(keyId);
  app.get('/service/smartmatch', { config: { refusalsAnswer200: true, rateLimit } }, async (request) => {
    const key = apiKeyOf(request);
    let query = request.query as Record<string, unknown>;
    if (query['filename'] === undefined && hasBody(request.raw)) {
      query = { ...(await readJsonParams(request.raw, bodyDeadlineOf(deps.config))), ...query };
    }
    const params = parseParams(smartmatchQuerySchema, query);
    const { url } = await deps.jobs.registerSmartmatch(key, {
      filename: params.filename,
      params: toParams(params),
    });
    return { url, error: null };
  });
}

function toParams(query: SmartmatchQuery) {
  const include: ContactField[] = [];
  if (query.include_email) include.push('email');
  if (query.include_landline) include.push('landline');
  if (query.include_wireless) include.push('wireless');
  if (query.include_voip) include.push('voip');
  return {
    webhook: query.webhook ?? null,
    include,
    maxMatches: query.max_matches ?? 1,
    format: query.format ?? 'csv',
    searchRadiusMiles: query.search_radius ?? null,
    notificationEmail: query.notification_email ?? null,
    mbpOnboarding: query.mbp_onboarding ?? false,
    digitalAudienceName: query.digital_audience_name ?? null,
    ...(query.profile_id === undefined ? {} : { profileId: query.profile_id }),
  };
}
