import type { IncomingMessage } from 'node:http';
import type { z } from 'zod';
import { AppError, isAppError } from '../domain/errors.ts';
import { type BodyDeadline, bodyWithDeadline } from './body-deadline.ts';
import { describeIssues } from './schemas/common.ts';

const MAX_JSON_BODY_BYTES = 64 * 1024;

/** Parses a query (or body) with a schema; a failure is a VALIDATION_FAILED naming every problem. */
export function parseParams<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const parsed = schema.safeParse(input ?? {});
  if (!parsed.success) throw new AppError('VALIDATION_FAILED', describeIssues(parsed.error));
  return parsed.data;
}

export const hasBody = (raw: IncomingMessage): boolean =>
  raw.headers['transfer-encoding'] !== undefined ||
  (raw.headers['content-length'] !== undefined && raw.headers['content-length'] !== '0');

/**
 * One client variant sends registration parameters as a JSON body on the GET (clients.md 5).
 * Reads at most 64 KiB, within the body deadline, and returns the object's values as strings, as
 * a query string would hold them. A body that is too large or stalls is refused without reading
 * on (the answer closes the connection); a client that went away is no error of ours.
 */
export async function readJsonParams(
  raw: IncomingMessage,
  deadline: BodyDeadline,
): Promise<Record<string, string>> {
  const declared = Number(raw.headers['content-length']);
  if (declared > MAX_JSON_BODY_BYTES) throw bodyTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of bodyWithDeadline(raw, deadline)) {
      size += chunk.length;
      if (size > MAX_JSON_BODY_BYTES) throw bodyTooLarge();
      chunks.push(chunk);
    }
  } catch (error) {
    if (isAppError(error)) throw error;
    throw new AppError('VALIDATION_FAILED', 'the request was interrupted before its body arrived', {
      cause: error,
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new AppError(
      'VALIDATION_FAILED',
      'parameters belong in the query string; the request body is not valid JSON',
    );
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new AppError(
      'VALIDATION_FAILED',
      'parameters belong in the query string; the JSON body must be an object',
    );
  }
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(parsed)) {
    if (typeof value === 'string') params[name] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') params[name] = String(value);
  }
  return params;
}

const bodyTooLarge = () =>
  new AppError(
    'PAYLOAD_TOO_LARGE',
    `parameters belong in the query string; a JSON body may hold at most ${MAX_JSON_BODY_BYTES / 1024} KiB`,
  );

/** The body deadline of the configuration. */
export const bodyDeadlineOf = (config: {
  HTTP_BODY_TIMEOUT_SECONDS: number;
  HTTP_BODY_MIN_BYTES_PER_SECOND: number;
}): BodyDeadline => ({
  timeoutMs: config.HTTP_BODY_TIMEOUT_SECONDS * 1000,
  minBytesPerSecond: config.HTTP_BODY_MIN_BYTES_PER_SECOND,
});
