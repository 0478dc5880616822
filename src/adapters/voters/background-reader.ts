import { Worker } from 'node:worker_threads';

/**
 * Reads whole files into shared memory on a thread of its own at the lowest CPU priority (nice 19
 * on Linux: background-read.worker.ts): what a process that answers requests loads a newly
 * published voter file's arrays with. Read on the process's I/O threads at its own priority, a
 * 10M-voter file's 1.3 GB took one of 2 cores for 7.5 s beside the lookups being answered: the
 * lookup thread lost a third of its time and requests queued for seconds. At the lowest priority
 * the copy takes only what the other threads leave; with nothing else to do it reads as fast.
 *
 * One thread per process, started on the first read; it does not keep the process alive while
 * no read waits.
 */
export class BackgroundReader {
  private worker: Worker | null = null;
  private ready: Promise<number> | null = null;
  private nextId = 0;
  private readonly pending = new Map<
    number,
    { resolve: (bytes: SharedArrayBuffer) => void; reject: (error: Error) => void }
  >();

  /** The whole file's bytes, in shared memory. */
  async read(path: string): Promise<Buffer> {
    const worker = this.start();
    const id = this.nextId++;
    const bytes = await new Promise<SharedArrayBuffer>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage({ id, path });
    });
    return Buffer.from(bytes);
  }

  /** The reading thread's nice value (19 on Linux; the process's elsewhere). */
  async priority(): Promise<number> {
    const worker = this.start();
    worker.ref();
    try {
      return await this.ready!;
    } finally {
      if (this.pending.size === 0) worker.unref();
    }
  }

  private start(): Worker {
    if (this.worker !== null) return this.worker;
    const worker = new Worker(new URL('./background-read.worker.ts', import.meta.url));
    this.worker = worker;
    let announced: (priority: number) => void = () => {};
    this.ready = new Promise((resolve) => {
      announced = resolve;
    });
    worker.on(
      'message',
      (message: { ready: number } | { id: number; bytes?: SharedArrayBuffer; error?: string }) => {
        if ('ready' in message) {
          announced(message.ready);
          return;
        }
        const waiting = this.pending.get(message.id);
        if (waiting === undefined) return;
        this.pending.delete(message.id);
        if (this.pending.size === 0) worker.unref();
        if (message.bytes !== undefined) waiting.resolve(message.bytes);
        else waiting.reject(new Error(message.error ?? 'the background read failed'));
      },
    );
    const fail = (error: Error) => {
      // The next read starts another thread.
      if (this.worker === worker) this.worker = null;
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
      announced(Number.NaN);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the background reading thread stopped (exit code ${code})`)));
    // After the listeners (adding one refs the thread again): no read waits yet.
    worker.unref();
    return worker;
  }
}

/** The process's background reader. */
export const backgroundReader = new BackgroundReader();
