import type { Socket } from 'node:net';

/**
 * How long a connection answered before its request body was read keeps reading (and dropping)
 * what the client still sends, before it is closed.
 */
export const LINGER_MS = 2_000;

/**
 * Closes a connection whose request body was answered before it was read, the way web servers
 * do (nginx's lingering close): the answer and the end of our side go out at once, but the rest
 * of the body is still read and dropped for up to `ms`, or until the client ends its side.
 * Closing with unread bytes in the socket would make the kernel reset the connection, and a
 * reset can reach the client before the answer does: the client, still writing its upload, would
 * hear EPIPE or ECONNRESET instead of why it was refused. Node's server closes an answered
 * `Connection: close` request through `socket.destroySoon()`, which this replaces for the one
 * socket.
 */
export function closeAfterLingering(socket: Socket, ms: number = LINGER_MS): void {
  socket.destroySoon = function lingeringDestroySoon(this: Socket): void {
    if (this.writable) this.end();
    const close = () => {
      clearTimeout(timer);
      this.destroy();
    };
    // At the deadline the connection goes, answered or not (a client that reads nothing must not
    // hold it); a client that ended its side first waits only for the answer to be written out.
    const timer = setTimeout(close, ms);
    timer.unref();
    this.once('end', () => {
      if (this.writableFinished) close();
      else this.once('finish', close);
    });
  };
}
