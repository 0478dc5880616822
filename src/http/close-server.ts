import type { FastifyInstance } from 'fastify';

/** How often a closing server looks for connections whose last request has ended. */
const SWEEP_MS = 50;

/**
 * Closes the HTTP side of a stopping process: new requests are refused (Fastify answers 503
 * while closing), idle keep-alive connections are closed at once, and a connection whose request
 * was still running (a result being downloaded, a poll being answered) as soon as that request
 * ends. Node closes only the connections idle when the close begins: one that became idle later
 * stayed open for its keep-alive timeout (HTTP_KEEP_ALIVE_SECONDS), and the stop with it. After
 * `graceMs` the requests still running are cut (a client retries its download URL).
 */
export async function closeServer(app: FastifyInstance, graceMs: number): Promise<void> {
  const closing = app.close();
  const sweep = setInterval(() => app.server.closeIdleConnections(), SWEEP_MS);
  const cut = setTimeout(() => app.server.closeAllConnections(), graceMs);
  try {
    await closing;
  } finally {
    clearInterval(sweep);
    clearTimeout(cut);
  }
}
