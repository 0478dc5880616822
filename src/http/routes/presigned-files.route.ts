import { type Readable, Transform } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { UPLOAD_NAME } from '../../domain/client-jobs/job-service.ts';
import { AppError, isAppError, storageFullOr } from '../../domain/errors.ts';
import type { VerifyingUrlSigner } from '../../domain/ports/url-signer.ts';
import { bodyWithDeadline } from '../body-deadline.ts';
import type { HttpDeps } from '../http-deps.ts';
import { bodyDeadlineOf } from '../request-helpers.ts';

/** HEAD answers headers only: release the file the result stream opened. */
const closed = (stream: { destroy(): void }): undefined => {
  stream.destroy();
  return undefined;
};

/**
 * The result stream, noting the moment its last byte is handed to the response: a client that
 * has it all may close the connection before the file stream's own end, which is no failure.
 */
function countingDelivery(stream: Readable, bytes: number, onLastByte: () => void): Readable {
  let sent = 0;
  if (bytes === 0) onLastByte();
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      sent += chunk.length;
      if (sent >= bytes) onLastByte();
      done(null, chunk);
    },
  });
  stream.on('error', (error) => counter.destroy(error));
  counter.on('close', () => stream.destroy());
  return stream.pipe(counter);
}

const CONTENT_TYPES: [suffix: string, type: string][] = [
  ['.csv.gz', 'application/gzip'],
  ['.zip', 'application/zip'],
  ['.csv', 'text/csv; charset=utf-8'],
];

/**
 * The addresses behind embedded presigned URLs: `PUT /files/:jobId/upload.csv` streams an upload
 * to storage; `GET /files/:jobId/<result>` serves a result. The URL's signature is the only
 * authorization; no API key is sent here.
 */
export function presignedFilesRoute(
  app: FastifyInstance,
  deps: HttpDeps & { fileUrls: VerifyingUrlSigner },
): void {
  app.register(async (scope) => {
    // Uploads are streamed by the handler: no body parser may buffer them, whatever the
    // Content-Type (clients send it empty or not at all).
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    // The type is irrelevant to an upload, and an empty header (which clients send) would be a
    // 415 in Fastify's media-type check: drop it before body handling starts.
    scope.addHook('onRequest', async (request) => {
      delete request.raw.headers['content-type'];
    });

    scope.put<{ Params: { jobId: string; name: string } }>('/files/:jobId/:name', async (request, reply) => {
      const { jobId, name } = request.params;
      const grant = deps.fileUrls.verify({ method: 'PUT', jobId, name, url: request.url }, Date.now());
      if (name !== UPLOAD_NAME) throw new AppError('URL_INVALID', 'this URL is not a valid presigned URL');
      const declared = request.headers['content-length'];
      const declaredBytes = declared === undefined ? null : Number(declared);
      try {
        const { bytes } = await deps.jobs.receiveUpload(
          jobId,
          bodyWithDeadline(request.raw, bodyDeadlineOf(deps.config)),
          Number.isFinite(declaredBytes) ? declaredBytes : null,
          Date.now,
          grant.maxBytes,
        );
        deps.metrics.uploadBytes.inc(bytes);
      } catch (error) {
        // A full disk cuts the upload short too, but it is the service's fault, never the client's.
        const failure = storageFullOr(error);
        if (!isAppError(failure) && (request.raw.aborted || request.raw.errored || !request.raw.complete)) {
          // The client went away mid-upload: nothing was kept, the same URL works again.
          throw new AppError(
            'VALIDATION_FAILED',
            'the upload was interrupted; nothing was kept, retry with the same URL',
            {
              cause: error,
            },
          );
        }
        throw failure;
      }
      // Exactly 200 with an empty body: two known clients reject 201 and 204.
      return reply.code(200).send();
    });

    scope.route<{ Params: { jobId: string; name: string } }>({
      method: ['GET', 'HEAD'],
      url: '/files/:jobId/:name',
      handler: async (request, reply) => {
        const { jobId, name } = request.params;
        deps.fileUrls.verify({ method: request.method, jobId, name, url: request.url }, Date.now());
        const result = await deps.jobs.openResult(jobId, name);
        const type =
          CONTENT_TYPES.find(([suffix]) => name.endsWith(suffix))?.[1] ?? 'application/octet-stream';
        // Deliberately no Content-Encoding for .csv.gz: the client must receive the gzip file itself.
        return reply
          .code(200)
          .header('content-type', type)
          .header('content-length', result.bytes)
          .header('content-disposition', `attachment; filename="${result.name}"`)
          .header('cache-control', 'private, no-store')
          .send(
            request.method === 'HEAD'
              ? closed(result.stream)
              : countingDelivery(result.stream, result.bytes, () => {
                  request.responseBodyComplete = true;
                }),
          );
      },
    });
  });
}
