import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiKeyRecord } from '../domain/keys/key-types.ts';
import type { HttpDeps } from './http-deps.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The client API route's rate limit, checked once its key is known (clientApiScope). */
    rateLimit?: (request: FastifyRequest, keyId: string) => Promise<void>;
  }
  interface FastifyRequest {
    /** The client's key, authenticated by clientApiScope before the route's handler runs. */
    apiKey: ApiKeyRecord | null;
  }
}

/**
 * The client API's routes (registration, poll, onboarding) in one scope: every request's
 * `x-api-key` is authenticated once, then the route's own rate limit is checked, before its
 * handler runs; a handler reads the key from `request.apiKey`.
 */
export function clientApiScope(
  app: FastifyInstance,
  deps: Pick<HttpDeps, 'keys'>,
  routes: readonly ((scope: FastifyInstance) => void)[],
): void {
  app.register(async (scope) => {
    scope.decorateRequest('apiKey', null);
    scope.addHook('preHandler', async (request) => {
      const key = await deps.keys.authenticate(request.headers['x-api-key']);
      request.apiKey = key;
      await request.routeOptions.config.rateLimit?.(request, key.id);
    });
    for (const route of routes) route(scope);
  });
}

/** The key clientApiScope authenticated. */
export function apiKeyOf(request: FastifyRequest): ApiKeyRecord {
  if (request.apiKey === null) throw new Error('a client API route ran outside clientApiScope');
  return request.apiKey;
}
