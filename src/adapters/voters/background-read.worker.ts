import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';

/**
 * The thread of BackgroundReader (background-reader.ts): reads whole files into shared memory at
 * the lowest CPU priority. On Linux a thread's nice value is its own (setpriority of the calling
 * thread), so only this thread yields; elsewhere it would lower the whole process, and the thread
 * keeps the process's priority.
 *
 * In: { id, path }. Out: { ready: priority } once, then { id, bytes } (a SharedArrayBuffer of the
 * file's bytes) or { id, error }.
 */
const port = parentPort!;
/** The nice value of the thread: the lowest priority there is. */
const LOWEST_PRIORITY = 19;
if (process.platform === 'linux') {
  try {
    setPriority(0, LOWEST_PRIORITY);
  } catch {
    // Not allowed here: read at the process's priority.
  }
}

/** Bytes read per system call: the copy yields between calls like any other work of the thread. */
const PIECE_BYTES = 8 << 20;

port.on('message', ({ id, path }: { id: number; path: string }) => {
  try {
    port.postMessage({ id, bytes: readShared(path) });
  } catch (error) {
    port.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
port.postMessage({ ready: getPriority(0) });

function readShared(path: string): SharedArrayBuffer {
  const fd = openSync(path, 'r');
  try {
    const { size } = fstatSync(fd);
    const bytes = new SharedArrayBuffer(size);
    const view = new Uint8Array(bytes);
    let position = 0;
    while (position < size) {
      const read = readSync(fd, view, position, Math.min(PIECE_BYTES, size - position), position);
      if (read === 0) throw new Error(`unexpected end of ${path}`);
      position += read;
    }
    return bytes;
  } finally {
    closeSync(fd);
  }
}
