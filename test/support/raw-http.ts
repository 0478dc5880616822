import { connect, type Socket } from 'node:net';

/** What came back on a raw connection once the server closed it (or the wait ended). */
export interface RawExchange {
  /** Everything the server sent. */
  text: string;
  /** Milliseconds from connecting until the server closed the connection; null if it stayed open. */
  closedAfterMs: number | null;
}

/**
 * A raw TCP connection to the service, for what fetch cannot do: trickle a body, send bytes that
 * are not valid HTTP, hold a connection idle. `exchange()` waits (at most `waitMs`) for the server
 * to close the connection and returns what it sent.
 */
export async function rawConnection(base: string): Promise<{
  socket: Socket;
  exchange(waitMs: number): Promise<RawExchange>;
}> {
  const { hostname, port } = new URL(base);
  const socket = connect({ host: hostname, port: Number(port) });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const started = Date.now();
  const chunks: Buffer[] = [];
  let closedAfterMs: number | null = null;
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) =>
    socket.once('close', () => {
      closedAfterMs = Date.now() - started;
      resolve();
    }),
  );
  return {
    socket,
    async exchange(waitMs) {
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, waitMs))]);
      return { text: Buffer.concat(chunks).toString('utf8'), closedAfterMs };
    },
  };
}

/** Status and JSON body of the first response in `text`. */
export function parseResponse(text: string): {
  status: number;
  headers: string;
  body: Record<string, unknown>;
} {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
  const split = text.indexOf('\r\n\r\n');
  const headers = text.slice(0, split);
  let rest = text.slice(split + 4);
  if (/\r\ntransfer-encoding: chunked/i.test(headers)) {
    // One chunk is all these small answers take.
    const size = Number.parseInt(rest.slice(0, rest.indexOf('\r\n')), 16);
    rest = rest.slice(rest.indexOf('\r\n') + 2, rest.indexOf('\r\n') + 2 + size);
  } else {
    const length = Number(/\r\ncontent-length: (\d+)/i.exec(headers)?.[1] ?? rest.length);
    rest = rest.slice(0, length);
  }
  return { status, headers, body: JSON.parse(rest) as Record<string, unknown> };
}

/** Writes `count` bytes one at a time, `everyMs` apart, until done or the socket closes. */
export async function trickle(socket: Socket, count: number, everyMs: number, byte = 'a'): Promise<number> {
  let sent = 0;
  while (sent < count && !socket.destroyed && socket.writable) {
    socket.write(byte);
    sent++;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return sent;
}
