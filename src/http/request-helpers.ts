import type { IncomingMessage } from 'node:http';
import type { z } from 'zod';
import { AppError } from '../domain/errors.ts';
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
 * Reads at most 64 KiB and returns the object's values as strings, as a query string would hold them.
 */
export async function readJsonParams(raw: IncomingMessage): Promise<Record<string, string>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of raw) {
    size += (chunk as Buffer).length;
    if (size > MAX_JSON_BODY_BYTES) {
      raw.destroy();
      throw new AppError(
        'VALIDATION_FAILED',
        'parameters belong in the query string; the request body is too large',
      );
    }
    chunks.push(chunk as Buffer);
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
