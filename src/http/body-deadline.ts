import { Readable } from 'node:stream';
import { AppError } from '../domain/errors.ts';

/** How long a request body may take: mod_reqtimeout's `body=<timeout>,MinRate=<bytes/s>`. */
export interface BodyDeadline {
  /** Grace before the rate applies, and the longest silence between two chunks, in ms. */
  timeoutMs: number;
  /** Each byte received extends the grace by 1/minBytesPerSecond seconds. */
  minBytesPerSecond: number;
}

/**
 * The request body, chunk by chunk, cut off with a REQUEST_TIMEOUT error when the client stalls
 * (nothing for `timeoutMs`) or trickles (after the grace, fewer than `minBytesPerSecond` on
 * average). Reading stops without destroying the socket, so the caller can still answer (and
 * close the connection); a client that went away ends it with the request's own error.
 */
export async function* bodyWithDeadline(
  raw: Readable,
  deadline: BodyDeadline,
  now: () => number = Date.now,
): AsyncGenerator<Buffer> {
  const started = now();
  let bytes = 0;
  let lastChunkAt = started;
  for (;;) {
    const chunk = raw.read() as Buffer | null;
    if (chunk !== null) {
      bytes += chunk.length;
      lastChunkAt = now();
      yield chunk;
      continue;
    }
    if (raw.readableEnded) return;
    if (raw.errored !== null) throw raw.errored;
    if (raw.destroyed) throw new Error('the client closed the connection before the body was complete');
    const due = Math.min(
      lastChunkAt + deadline.timeoutMs,
      started + deadline.timeoutMs + (bytes / deadline.minBytesPerSecond) * 1000,
    );
    const waitMs = due - now();
    if (waitMs <= 0 || !(await readableWithin(raw, waitMs))) {
      throw new AppError(
        'REQUEST_TIMEOUT',
        `the request body stalled (at least ${deadline.minBytesPerSecond} bytes per second after the first ${Math.round(deadline.timeoutMs / 1000)} s are required); nothing was kept, retry with the same URL`,
      );
    }
  }
}

/**
 * The request body as a stream that fails with bodyWithDeadline's REQUEST_TIMEOUT error, for body
 * parsers. Lazy: nothing is read from `raw` until the stream is, so a handler that reads `raw`
 * itself (an upload) is unaffected when no parser reads this one.
 */
export function bodyStreamWithDeadline(raw: Readable, deadline: BodyDeadline): Readable {
  return Readable.from(bodyWithDeadline(raw, deadline), { objectMode: false });
}

/** Resolves true when the stream has something new to report (data, end, error, close), false at the timeout. */
function readableWithin(raw: Readable, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const events = ['readable', 'end', 'error', 'close'] as const;
    const done = (value: boolean) => {
      clearTimeout(timer);
      for (const event of events) raw.off(event, onEvent);
      resolve(value);
    };
    const onEvent = () => done(true);
    const timer = setTimeout(() => done(false), ms);
    for (const event of events) raw.on(event, onEvent);
  });
}
