import type { FastifyInstance } from 'fastify';
import type { HttpDeps } from '../http-deps.ts';
import { buildOpenApiDocument } from '../openapi.ts';

/**
 * `/healthz` (the process answers), `/readyz` (it can do work: 503 when the database or storage
 * fails; other checks such as `delivery` are reported without changing the status), `/metrics`,
 * `/openapi.json`.
 */
export function operationsRoutes(app: FastifyInstance, deps: HttpDeps): void {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_request, reply) => {
    const report = await deps.readiness();
    return reply
      .code(report.ready ? 200 : 503)
      .send({ status: report.ready ? 'ready' : 'not_ready', checks: report.checks });
  });

  app.get('/metrics', async (_request, reply) => {
    const body = await deps.metrics.registry.metrics();
    return reply.header('content-type', deps.metrics.registry.contentType).send(body);
  });

  const document = buildOpenApiDocument(deps.config.publicUrl);
  app.get('/openapi.json', async () => document);
}
