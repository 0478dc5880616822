import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';

export interface PlatformResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body as text, cut at `MAX_BODY_CHARS`: answers are small JSON or XML. */
  body: string;
}

/** Answers are read only for their JSON fields or error message; more is never needed. */
const MAX_BODY_CHARS = 256 * 1024;

export interface PlatformRequest {
  method: 'GET' | 'POST' | 'PUT';
  headers: Readonly<Record<string, string | number>>;
  /** A small body in full, or a stream of exactly `content-length` bytes (never buffered). */
  body?: Buffer | Readable;
  /**
   * Without `streaming`, the whole call must finish within this; with it (uploads), only silence
   * longer than this fails the call, so a large file may take as long as it needs.
   */
  timeoutMs: number;
  streaming?: boolean;
  signal?: AbortSignal;
}

/**
 * One HTTP(S) call over node:http with no redirects followed. Resolves with any answer (the
 * caller classifies the status); rejects on network errors, timeouts and aborts with an Error
 * whose message names the condition only (never the URL: a presigned one is a credential).
 */
export function platformRequest(url: URL, init: PlatformRequest): Promise<PlatformResponse> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | null, response?: PlatformResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      init.signal?.removeEventListener('abort', onAbort);
      if (error !== null) reject(error);
      else resolve(response!);
    };
    // Aborted before it started (a shutdown): no request is made, so none is destroyed before
    // its error listener is on (that destroy threw 'socket hang up' past every handler).
    if (init.signal?.aborted) {
      reject(Object.assign(new Error('the call was aborted'), { code: 'ABORT_ERR' }));
      return;
    }
    const request = send(url, { method: init.method, headers: init.headers });
    request.on('error', (error: NodeJS.ErrnoException) => {
      // Writing after an early answer fails with EPIPE/ECONNRESET; the answer is what counts.
      if (!settled) fail(`connection failed (${error.code ?? 'error'})`, error.code);
    });
    const fail = (message: string, code?: string) => {
      const error = Object.assign(new Error(message), code === undefined ? {} : { code });
      request.destroy();
      if (init.body !== undefined && !Buffer.isBuffer(init.body)) init.body.destroy();
      finish(error);
    };
    const deadline = init.streaming
      ? undefined
      : setTimeout(() => fail(`no answer within ${init.timeoutMs} ms`, 'ETIMEDOUT'), init.timeoutMs);
    request.setTimeout(init.timeoutMs, () => fail(`no data for ${init.timeoutMs} ms`, 'ETIMEDOUT'));
    const onAbort = () => fail('the call was aborted', 'ABORT_ERR');
    init.signal?.addEventListener('abort', onAbort, { once: true });

    request.on('response', (response) => {
      response.setEncoding('utf8');
      let body = '';
      response.on('data', (chunk: string) => {
        if (body.length < MAX_BODY_CHARS) body += chunk.slice(0, MAX_BODY_CHARS - body.length);
      });
      response.on('end', () =>
        finish(null, { status: response.statusCode ?? 0, headers: response.headers, body }),
      );
      response.on('error', (error: NodeJS.ErrnoException) => fail('the answer broke off', error.code));
      // A server that answers early (413, 401) stops reading: stop sending the rest of the file
      // and close it (the caller opens it again for another attempt).
      const source = init.body;
      if (source !== undefined && !Buffer.isBuffer(source) && !source.readableEnded) {
        source.unpipe(request);
        source.destroy();
      }
    });
    if (init.body === undefined) request.end();
    else if (Buffer.isBuffer(init.body)) request.end(init.body);
    else {
      init.body.on('error', () => fail('the file could not be read', 'SOURCE_ERROR'));
      init.body.pipe(request);
    }
  });
}
