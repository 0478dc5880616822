import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isAppError } from '../../domain/errors.ts';
import type { ApiKeyRecord } from '../../domain/keys/key-types.ts';
import { cookieHeader, readCookie } from '../cookies.ts';
import { folderPage, messagePage, signInPage } from '../file-browser-pages.ts';
import type { HttpDeps } from '../http-deps.ts';

const SECURITY_HEADERS = {
  // No scripts at all; forms post to this origin only; no framing (clickjacking).
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  // same-origin, not no-referrer: with no-referrer, browsers send `Origin: null` on our own form posts.
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
};
const SIGN_IN_NONCE_SECONDS = 3600;

/**
 * The web file browser: `GET /browse` (sign-in form, or the signed-in key's `smartmatch` folder),
 * `POST /browse/sign-in`, `POST /browse/sign-out`, `GET /browse/files/:name` (download). The API
 * key is posted once in a form body; the session is a short-lived HMAC-signed cookie naming the
 * key id (HttpOnly, SameSite=Strict, Secure and `__Host-` prefixed behind https). Sign-in and
 * sign-out need a form token bound to a cookie (CSRF and login CSRF), and a cross-site Origin is
 * refused outright.
 */
export function fileBrowserRoute(app: FastifyInstance, deps: HttpDeps): void {
  const secure = deps.config.publicUrl.startsWith('https:');
  // `__Host-` cookies are only accepted over https, for this host and path /, by the browser.
  const sessionCookie = secure ? '__Host-lm_files' : 'lm_files';
  const nonceCookie = secure ? '__Host-lm_signin' : 'lm_signin';
  const publicOrigin = new URL(deps.config.publicUrl).origin;
  const browser = deps.files;

  const currentKey = async (
    request: FastifyRequest,
  ): Promise<{ key: ApiKeyRecord; session: string } | null> => {
    const session = readCookie(request.headers.cookie, sessionCookie);
    const key = await browser.sessionKey(session);
    return key === null || session === undefined ? null : { key, session };
  };

  /** A fresh sign-in form, with its nonce cookie. */
  const sendSignIn = (reply: FastifyReply, status: number, error?: string) => {
    const nonce = browser.newSignInNonce();
    return reply
      .code(status)
      .header(
        'set-cookie',
        cookieHeader(nonceCookie, nonce, { maxAgeSeconds: SIGN_IN_NONCE_SECONDS, secure }),
      )
      .type('text/html; charset=utf-8')
      .send(signInPage({ token: browser.signInToken(nonce), ...(error === undefined ? {} : { error }) }));
  };

  /** Browsers send Origin on every POST; one that is not ours is a cross-site form. */
  const sameOrigin = (request: FastifyRequest): boolean => {
    const origin = request.headers.origin;
    if (origin === undefined) return request.headers['sec-fetch-site'] !== 'cross-site';
    return origin === publicOrigin || origin === `${request.protocol}://${request.host}`;
  };

  app.register(async (scope) => {
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 4096 },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );
    scope.addHook('onSend', async (_request, reply) => {
      reply.headers(SECURITY_HEADERS);
    });
    // Errors here are pages, not the API's JSON: say what happened, never the key or a path.
    scope.setErrorHandler((error, request, reply) => {
      if (isAppError(error) && error.code === 'NOT_FOUND') {
        return reply
          .code(404)
          .type('text/html; charset=utf-8')
          .send(messagePage('Not found', 'There is no such file in your folder.'));
      }
      // A form body that did not arrive within the body deadline (app.ts); the connection closes.
      if (isAppError(error) && error.code === 'REQUEST_TIMEOUT') {
        return reply
          .code(408)
          .type('text/html; charset=utf-8')
          .send(messagePage('Too slow', 'The form took too long to arrive; please try again.'));
      }
      if (typeof (error as { statusCode?: unknown }).statusCode === 'number') {
        const status = (error as { statusCode: number }).statusCode;
        if (status >= 400 && status < 500) {
          return reply
            .code(status)
            .type('text/html; charset=utf-8')
            .send(messagePage('Bad request', 'The request could not be read.'));
        }
      }
      request.log.error({ err: error }, 'file browser request failed');
      return reply
        .code(503)
        .type('text/html; charset=utf-8')
        .send(
          messagePage(
            'Files unavailable',
            `Your files cannot be reached right now; try again in a few minutes (reference ${request.id}).`,
          ),
        );
    });

    scope.get('/browse', async (request, reply) => {
      const current = await currentKey(request);
      if (current === null) return sendSignIn(reply, 200);
      const files = await browser.list(current.key);
      return reply.type('text/html; charset=utf-8').send(
        folderPage({
          keyName: current.key.name,
          keyPrefix: current.key.displayPrefix,
          files,
          signOutToken: browser.signOutToken(current.session),
        }),
      );
    });

    scope.post<{ Body: Record<string, string> | undefined }>('/browse/sign-in', async (request, reply) => {
      const form = request.body ?? {};
      const nonce = readCookie(request.headers.cookie, nonceCookie);
      if (
        !sameOrigin(request) ||
        nonce === undefined ||
        !browser.tokenMatches(form['token'], browser.signInToken(nonce))
      ) {
        return sendSignIn(
          reply,
          403,
          'The sign-in form expired or came from another site; please sign in again.',
        );
      }
      let signedIn: Awaited<ReturnType<typeof browser.signIn>>;
      try {
        signedIn = await browser.signIn(form['api_key'] ?? '');
      } catch (error) {
        if (isAppError(error) && error.code === 'UNAUTHORIZED') {
          return sendSignIn(reply, 401, 'That API key was not accepted.');
        }
        throw error;
      }
      request.log.info({ keyId: signedIn.key.id }, 'file browser sign-in');
      return reply
        .code(303)
        .header('set-cookie', [
          cookieHeader(sessionCookie, signedIn.session, { maxAgeSeconds: signedIn.maxAgeSeconds, secure }),
          cookieHeader(nonceCookie, '', { maxAgeSeconds: 0, secure }),
        ])
        .header('location', '/browse')
        .send();
    });

    scope.post<{ Body: Record<string, string> | undefined }>('/browse/sign-out', async (request, reply) => {
      const session = readCookie(request.headers.cookie, sessionCookie);
      const form = request.body ?? {};
      if (
        session !== undefined &&
        sameOrigin(request) &&
        browser.tokenMatches(form['token'], browser.signOutToken(session))
      ) {
        reply.header('set-cookie', cookieHeader(sessionCookie, '', { maxAgeSeconds: 0, secure }));
      }
      return reply.code(303).header('location', '/browse').send();
    });

    scope.get<{ Params: { name: string } }>('/browse/files/:name', async (request, reply) => {
      const current = await currentKey(request);
      if (current === null) {
        return reply
          .code(401)
          .type('text/html; charset=utf-8')
          .send(messagePage('Signed out', 'Sign in again to download your files.'));
      }
      const { name } = request.params;
      const file = await browser.open(current.key, name);
      return reply
        .header('content-type', name.endsWith('.zip') ? 'application/zip' : 'application/octet-stream')
        .header('content-length', String(file.bytes))
        .header('content-disposition', `attachment; filename="${name}"`)
        .send(file.stream);
    });
  });
}
