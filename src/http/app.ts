import type { Socket } from 'node:net';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import { AppError, isAppError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import { bodyStreamWithDeadline } from './body-deadline.ts';
import { clientApiScope } from './client-api-scope.ts';
import { errorAnswer, refusedRequestError } from './error-mapping.ts';
import type { HttpDeps } from './http-deps.ts';
import { closeAfterLingering } from './lingering-close.ts';
import { bodyDeadlineOf, hasBody } from './request-helpers.ts';
import { fileBrowserRoute } from './routes/file-browser.route.ts';
import { operationsRoutes } from './routes/operations.route.ts';
import { LOOKUP_ROUTES, personLookupRoutes } from './routes/person-lookups.route.ts';
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
  ...LOOKUP_ROUTES.map((path): [string, string] => [path, 'GET']),
];
const OTHER_METHODS = ['HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;
/** A socket with no traffic either way for this long is closed (a client that stopped reading a download). */
const SOCKET_IDLE_MS = 120_000;

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A client that presented a valid key gets its refusals (validation, entitlement, unknown
     * job) as HTTP 200 with `error` set: the widely used Python connector calls
     * `raise_for_status()` before it reads `error` (clients.md 7). 401, 429 and 5xx stay.
     */
    refusalsAnswer200?: boolean;
  }
  interface FastifyRequest {
    /** Set by a download once its last byte went to the response (see ServiceLogController). */
    responseBodyComplete: boolean;
  }
}

/** The answer to a request no route takes. */
const notFound = (request: FastifyRequest) =>
  new AppError('NOT_FOUND', `no endpoint ${request.method} ${request.url.split('?')[0]}; see /openapi.json`);

/** The contract's error body: `url` null and an error string that starts with its kind. */
const errorBody = (error: string, code: string, requestId: string) => ({
  url: null,
  error,
  code,
  request_id: requestId,
});

/**
 * Fastify's own log lines, as the default, except for response streams: a client that received
 * every byte of a download and closed the connection before the file stream's last event is not
 * an error worth a line (debug); one that went away mid-download is told apart at info.
 */
class ServiceLogController extends LogController {
  override streamError(error: Error & { code?: string }, request: FastifyRequest, reply: FastifyReply): void {
    if (error.code !== 'ERR_STREAM_PREMATURE_CLOSE') {
      super.streamError(error, request, reply);
      return;
    }
    if (reply.raw.writableEnded || request.responseBodyComplete)
      request.log.debug('download complete; the client closed the connection');
    else request.log.info('download interrupted: the client closed the connection');
  }
}

/**
 * Errors Node's HTTP parser meets before a request exists (headers or request line over 16 KB,
 * a malformed request, the request timeout): answered in the contract's shape, then closed.
 */
function answerClientError(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, text] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [
          431,
          'Request Header Fields Too Large',
          'the request line and headers exceed 16 KB; send a shorter query',
        ]
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'the request took too long to arrive']
        : [400, 'Bad Request', 'the request is not valid HTTP'];
  const id = newId('req');
  const body = JSON.stringify(errorBody(refusedRequestError(text), 'BAD_REQUEST', id));
  this.log.debug({ err: error, request_id: id }, 'client error');
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nx-request-id: ${id}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroySoon();
}

export function buildApp(
  deps: HttpDeps,
  options: {
    /** Where log lines go (standard output by default); tests read them. */
    logStream?: { write(line: string): void };
    /**
     * Only /healthz, /readyz, /metrics and /openapi.json: a worker-only process serves these so
     * that its own metrics (queue wait, stage durations) and health can be scraped and probed.
     */
    operationsOnly?: boolean;
  } = {},
): FastifyInstance {
  const app = Fastify({
    logger: {
      level: deps.config.LOG_LEVEL,
      ...(options.logStream === undefined ? {} : { stream: options.logStream }),
      // Log paths only: query strings hold e-mail addresses and URL signatures; headers hold keys.
      serializers: {
        req: (req) => ({ id: req.id, method: req.method, path: req.url.split('?')[0] }),
        res: (res) => ({ statusCode: res.statusCode }),
      },
    },
    genReqId: () => newId('req'),
    // Node's requestTimeout (Fastify sets 0) bounds a whole request; bodies have their own
    // stall and rate deadline (body-deadline.ts); idle keep-alive connections are closed.
    requestTimeout: deps.config.HTTP_REQUEST_TIMEOUT_SECONDS * 1000,
    keepAliveTimeout: deps.config.HTTP_KEEP_ALIVE_SECONDS * 1000,
    connectionTimeout: SOCKET_IDLE_MS,
    clientErrorHandler: answerClientError,
    logController: new ServiceLogController({
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
      (reply as FastifyReply)
        .code(400)
        .header('x-request-id', id)
        .send(errorBody(refusedRequestError(error.message), error.code, id));
    },
  });

  app.decorateRequest('responseBodyComplete', false);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  // A request no route takes is answered before its body is read (and the connection closed,
  // below): a trickling body on an unknown path must not hold a socket.
  app.addHook('onRequest', async (request) => {
    if (request.is404) throw notFound(request);
  });
  // Every body a parser reads (Fastify's JSON and text parsers, the sign-in form, any a scope
  // adds) arrives within the body deadline, or the request is answered 408: otherwise a client
  // trickling a byte every few seconds holds the socket until the hour-long request timeout.
  // Handlers that stream request.raw themselves (uploads, the JSON-body GET) apply the same
  // deadline with bodyWithDeadline; this stream is lazy, so it costs them nothing.
  const bodyDeadline = bodyDeadlineOf(deps.config);
  app.addHook('preParsing', async (request, _reply, payload) =>
    hasBody(request.raw) ? bodyStreamWithDeadline(payload, bodyDeadline) : payload,
  );
  // An answer given before the client finished sending (a refused upload, a body that stalled)
  // closes the connection: otherwise Node would read on and a trickling client would hold it.
  // A refusal lingers first (reads and drops the body a moment), so that a client still sending
  // hears the answer rather than a reset; a body cut off at its deadline (408) closes at once.
  app.addHook('onSend', async (request, reply) => {
    if (request.raw.complete) return;
    reply.header('connection', 'close');
    if (reply.statusCode !== 408) closeAfterLingering(request.raw.socket);
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    deps.metrics.httpRequests.inc({ route, method: request.method, status: String(reply.statusCode) });
    deps.metrics.httpDuration.observe({ route }, reply.elapsedTime / 1000);
  });

  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    // The one mapping of an error to the contract's text (errorAnswer → publicMessage).
    const answer = errorAnswer(error, request.id);
    let status = answer.status;
    const { error: body, code } = answer;
    if (isAppError(error)) {
      if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
      if (status >= 500) request.log.error({ err: error }, 'request failed');
    } else if (status >= 500) {
      request.log.error({ err: error }, 'unexpected error');
    }
    if (
      request.routeOptions.config?.refusalsAnswer200 === true &&
      status < 500 &&
      status !== 401 &&
      status !== 429
    )
      status = 200;
    return reply.code(status).send(errorBody(body, code, request.id));
  });

  app.setNotFoundHandler((request) => {
    throw notFound(request);
  });

  if (options.operationsOnly === true) {
    operationsRoutes(app, deps);
    return app;
  }

  for (const [path, allowed] of METHOD_GUARDS) {
    const methods = OTHER_METHODS.filter((method) => !allowed.includes(method));
    const refuse = async (request: FastifyRequest, reply: FastifyReply) => {
      reply.header('allow', allowed.replace(' or ', ', '));
      throw new AppError(
        'METHOD_NOT_ALLOWED',
        `method ${request.method} is not allowed here; use ${allowed}`,
      );
    };
    // Refused in onRequest, before a body is read: a POST's body is never wanted here.
    app.route({ method: [...methods], url: path, onRequest: refuse, handler: refuse });
  }

  clientApiScope(app, deps, [
    (scope) => registerSmartmatchRoute(scope, deps),
    (scope) => pollSmartmatchRoute(scope, deps),
    (scope) => registerOnboardingRoute(scope, deps),
  ]);
  if (deps.lookups !== undefined && deps.lookups !== null)
    personLookupRoutes(app, { ...deps, lookups: deps.lookups });
  if (deps.fileUrls !== null) presignedFilesRoute(app, { ...deps, fileUrls: deps.fileUrls });
  operationsRoutes(app, deps);
  fileBrowserRoute(app, deps);
  return app;
}
