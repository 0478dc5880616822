import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyServerOptions,
  LogController,
} from 'fastify';
import { AppError, isAppError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import { kindForStatus, mapErrorCode } from './error-mapping.ts';
import type { HttpDeps } from './http-deps.ts';
import { fileBrowserRoute } from './routes/file-browser.route.ts';
import { operationsRoutes } from './routes/operations.route.ts';
import { pollSmartmatchRoute } from './routes/poll-smartmatch.route.ts';
import { presignedFilesRoute } from './routes/presigned-files.route.ts';
import { registerOnboardingRoute } from './routes/register-onboarding.route.ts';
import { registerSmartmatchRoute } from './routes/register-smartmatch.route.ts';

/** Paths whose other methods answer 405 (JSON) instead of 404. */
const METHOD_GUARDS: [path: string, allowed: string][] = [
  ['/service/smartmatch', 'GET'],
  ['/service/smartmatch/poll', 'GET'],
  ['/service/onboarding', 'GET'],
  ['/files/:jobId/:name', 'GET, HEAD or PUT'],
];
const OTHER_METHODS = ['HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

export function buildApp(
  deps: HttpDeps,
  options: {
    logger?: FastifyServerOptions['logger'];
    /**
     * Only /healthz, /readyz, /metrics and /openapi.json: a worker-only process serves these so
     * that its own metrics (queue wait, stage durations) and health can be scraped and probed.
     */
    operationsOnly?: boolean;
  } = {},
): FastifyInstance {
  const app = Fastify({
    logger: options.logger ?? {
      level: deps.config.LOG_LEVEL,
      // Log paths only: query strings hold e-mail addresses and URL signatures; headers hold keys.
      serializers: {
        req: (req) => ({ id: req.id, method: req.method, path: req.url.split('?')[0] }),
        res: (res) => ({ statusCode: res.statusCode }),
      },
    },
    genReqId: () => newId('req'),
    logController: new LogController({
      requestIdLogLabel: 'request_id',
      // Per-request lines only when debugging: at 5,000 polls/s they would drown everything else.
      disableRequestLogging: deps.config.LOG_LEVEL !== 'debug' && deps.config.LOG_LEVEL !== 'trace',
    }),
    // Registration bodies of the JSON-body client variant are read by hand, uploads are streamed.
    bodyLimit: 64 * 1024,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    // No implicit HEAD routes: HEAD on a registration would register a job. Routes that want
    // HEAD (downloads) declare it.
    exposeHeadRoutes: false,
    // Errors Fastify raises before routing (a malformed URL) get the contract's shape too.
    frameworkErrors: (error, request, reply) => {
      const id = request.id ?? newId('req');
      const body = {
        url: null,
        error: `Validation Error: ${error.message}`,
        code: error.code,
        request_id: id,
      };
      (reply as FastifyReply).code(400).header('x-request-id', id).send(body);
    },
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    deps.metrics.httpRequests.inc({ route, method: request.method, status: String(reply.statusCode) });
    deps.metrics.httpDuration.observe({ route }, reply.elapsedTime / 1000);
  });

  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    let status: number;
    let body: string;
    let code: string;
    if (isAppError(error)) {
      const mapped = mapErrorCode(error.code);
      status = mapped.status;
      body = `${mapped.kind}: ${error.message}`;
      code = error.code;
      if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
      if (status >= 500) request.log.error({ err: error }, 'request failed');
    } else if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      status = error.statusCode;
      body = `${kindForStatus(status)}: ${error.message}`;
      code = error.code ?? 'BAD_REQUEST';
    } else {
      request.log.error({ err: error }, 'unexpected error');
      status = 500;
      body = `Internal Error: the request failed; quote ${request.id} to the operator`;
      code = 'INTERNAL';
    }
    return reply.code(status).send({ url: null, error: body, code, request_id: request.id });
  });

  app.setNotFoundHandler((request) => {
    throw new AppError(
      'NOT_FOUND',
      `no endpoint ${request.method} ${request.url.split('?')[0]}; see /openapi.json`,
    );
  });

  if (options.operationsOnly === true) {
    operationsRoutes(app, deps);
    return app;
  }

  for (const [path, allowed] of METHOD_GUARDS) {
    const methods = OTHER_METHODS.filter((method) => !allowed.includes(method));
    app.route({
      method: [...methods],
      url: path,
      handler: async (request, reply) => {
        reply.header('allow', allowed.replace(' or ', ', '));
        throw new AppError(
          'METHOD_NOT_ALLOWED',
          `method ${request.method} is not allowed here; use ${allowed}`,
        );
      },
    });
  }

  registerSmartmatchRoute(app, deps);
  pollSmartmatchRoute(app, deps);
  registerOnboardingRoute(app, deps);
  if (deps.fileUrls !== null) presignedFilesRoute(app, { ...deps, fileUrls: deps.fileUrls });
  operationsRoutes(app, deps);
  fileBrowserRoute(app, deps);
  return app;
}
