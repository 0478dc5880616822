import { open } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { MatchIndexMeta } from '../../domain/matching/index/match-index-parts.ts';
import { type MatchIndexSegment, segmentBuffers } from '../../domain/matching/index/match-index-segment.ts';
import { combineBoxes, type ShardBox } from './shard-contacts.ts';

/** Chunks each thread may have queued before the sender waits for it. */
const MAX_CHUNKS_IN_FLIGHT_PER_THREAD = 4;

/** Segment threads of a build: every core (the import's parser shares them), at most 4. */
export const defaultIndexThreads = (): number => Math.max(1, Math.min(availableParallelism(), 4));

export interface BuiltMatchIndex {
  meta: MatchIndexMeta;
  parts: Map<string, Uint8Array>;
  /** With the `shard` option: the box of the voters' coordinates (shard-contacts.ts); else null. */
  box: ShardBox;
}

/**
 * Threads that build match indexes, one build after another (match-index-build.worker.ts): a
 * sharded import keeps one set over its shards, so each thread loads and compiles its code and
 * makes its tables once (a 250k-voter build on a fresh thread took about 1.4 s more of its index
 * thread than a quarter of a 1M-voter build). `broken` once a build failed on them: they are
 * stopped.
 */
export class MatchIndexWorkers {
  readonly workers: Worker[];
  private stopped = false;

  constructor(threads = defaultIndexThreads()) {
    this.workers = Array.from(
      { length: Math.max(1, threads) },
      () => new Worker(new URL('./match-index-build.worker.ts', import.meta.url)),
    );
  }

  get broken(): boolean {
    return this.stopped;
  }

  async terminate(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }
}

/**
 * Builds the match index on several threads while the caller streams the records file to it:
 * chunks of whole records go to the threads in turn, each thread builds a segment of the index
 * from its chunks, and at the end one thread merges the segments (match-index-build.worker.ts).
 * The index is the same whatever the number of threads. The threads are its own (stopped at the
 * end), or `workers` lent for this build (left running when it succeeds, for the next one).
 */
export class MatchIndexThreads {
  private readonly workers: Worker[];
  private readonly lent: MatchIndexWorkers;
  private readonly owned: boolean;
  private built = false;
  private readonly listeners: { worker: Worker; event: string; listener: WorkerListener }[] = [];
  private readonly segments: Map<Worker, (segment: MatchIndexSegment) => void> = new Map();
  /** Each thread's box, as its part comes (the `shard` option). */
  private readonly boxes: ShardBox[] = [];
  private next = 0;
  private inFlight = 0;
  private failure: Error | null = null;
  private wake: (() => void) | null = null;
  private readonly result: Promise<BuiltMatchIndex>;
  private resolveResult!: (built: BuiltMatchIndex) => void;
  private rejectResult!: (error: Error) => void;

  constructor(
    columns: readonly string[],
    options: { threads?: number; asOf?: Date; workers?: MatchIndexWorkers; shard?: boolean } = {},
  ) {
    if (options.workers?.broken) throw new Error('the match index threads were stopped');
    this.owned = options.workers === undefined;
    this.lent = options.workers ?? new MatchIndexWorkers(options.threads ?? defaultIndexThreads());
    this.workers = this.lent.workers;
    const asOf = (options.asOf ?? new Date()).toISOString();
    this.result = new Promise((resolve, reject) => {
      this.resolveResult = resolve;
      this.rejectResult = reject;
    });
    // The import awaits the result only at the end; a failure before then surfaces in waitForRoom.
    this.result.catch(() => {});
    for (const worker of this.workers) {
      this.listen(worker, 'message', (message: WorkerMessage) => this.onMessage(worker, message));
      this.listen(worker, 'error', (error: Error) => this.fail(error));
      this.listen(worker, 'exit', (code: number) => {
        if (code !== 0) this.fail(new Error(`a match index thread exited with code ${code}`));
      });
      worker.postMessage({ begin: { columns: [...columns], asOf, shard: options.shard === true } });
    }
  }

  /**
   * Sends whole records (lines, one chunk or several in order) whose first is voter `firstRow`.
   * Bytes in shared memory are shared (the import's prepared blocks); others are copied.
   */
  send(chunks: Uint8Array | readonly Uint8Array[], firstRow: number): void {
    const sent: Uint8Array[] = [];
    const transfer: ArrayBuffer[] = [];
    for (const chunk of chunks instanceof Uint8Array ? [chunks] : chunks) {
      if (chunk.buffer instanceof SharedArrayBuffer) sent.push(chunk);
      else {
        const copy = new Uint8Array(chunk);
        sent.push(copy);
        transfer.push(copy.buffer);
      }
    }
    const worker = this.workers[this.next]!;
    this.next = (this.next + 1) % this.workers.length;
    this.inFlight++;
    worker.postMessage({ chunks: sent, firstRow }, transfer);
  }

  /** Resolves when the threads have room for more chunks; throws when a thread failed. */
  async waitForRoom(): Promise<void> {
    while (this.failure === null && this.inFlight > MAX_CHUNKS_IN_FLIGHT_PER_THREAD * this.workers.length) {
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
    if (this.failure) throw this.failure;
  }

  /** Ends the input: collects the segments, merges them on the first thread, and stops the threads. */
  async finish(): Promise<BuiltMatchIndex> {
    try {
      const [merger, ...others] = this.workers as [Worker, ...Worker[]];
      const segments = await Promise.race([
        Promise.all(
          others.map(
            (worker) =>
              new Promise<MatchIndexSegment>((resolve) => {
                this.segments.set(worker, resolve);
                worker.postMessage({ finish: 'segment' });
              }),
          ),
        ),
        // A thread that fails meanwhile rejects the result: stop waiting for the others.
        new Promise<never>((_, reject) => {
          this.result.catch(reject);
        }),
      ]);
      merger.postMessage({ finish: 'merge', segments }, segments.flatMap(segmentBuffers));
      const built = await this.result;
      this.built = true;
      return built;
    } finally {
      await this.terminate();
    }
  }

  /**
   * Ends the build: its own threads are stopped; lent ones are let go for the next build once
   * this one succeeded, and stopped when it did not (they may still be busy with it).
   */
  async terminate(): Promise<void> {
    for (const { worker, event, listener } of this.listeners.splice(0)) worker.off(event, listener);
    if (this.owned || !this.built) await this.lent.terminate();
  }

  private listen(worker: Worker, event: string, listener: WorkerListener): void {
    worker.on(event, listener);
    this.listeners.push({ worker, event, listener });
  }

  private onMessage(worker: Worker, message: WorkerMessage): void {
    if ('ack' in message) {
      this.inFlight--;
      this.wakeUp();
    } else if ('error' in message) this.fail(new Error(`building the match index failed: ${message.error}`));
    else if ('segment' in message) {
      this.boxes.push(message.box);
      this.segments.get(worker)?.(message.segment);
    } else {
      this.boxes.push(message.box);
      this.resolveResult({
        meta: message.meta,
        parts: new Map(message.names.map((n, i) => [n, message.buffers[i]!])),
        box: combineBoxes(this.boxes),
      });
    }
  }

  private fail(error: Error): void {
    this.failure ??= error;
    this.rejectResult(error);
    this.wakeUp();
  }

  private wakeUp(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}

type WorkerListener = Parameters<Worker['on']>[1];

type WorkerMessage =
  | { ack: number }
  | { error: string }
  | { segment: MatchIndexSegment; box: ShardBox }
  | { meta: MatchIndexMeta; names: string[]; buffers: Uint8Array[]; box: ShardBox };

/** Bytes read from the records file per chunk (whole lines are sent; the rest carries over). */
const RECORDS_CHUNK_BYTES = 1 << 20;

/**
 * Builds the match index from a stored records file (a version imported before the index, or
 * with an index of an older format), on `threads` threads.
 */
export async function buildMatchIndexFromRecords(
  recordsPath: string,
  columns: readonly string[],
  options: { threads?: number; asOf?: Date; chunkBytes?: number; shard?: boolean } = {},
): Promise<BuiltMatchIndex> {
  const threads = new MatchIndexThreads(columns, options);
  const file = await open(recordsPath, 'r');
  try {
    let carry = Buffer.alloc(0);
    let row = 0;
    const buffer = Buffer.allocUnsafe(options.chunkBytes ?? RECORDS_CHUNK_BYTES);
    for (;;) {
      const { bytesRead } = await file.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      const bytes =
        carry.length === 0
          ? buffer.subarray(0, bytesRead)
          : Buffer.concat([carry, buffer.subarray(0, bytesRead)]);
      const end = bytes.lastIndexOf(0x0a) + 1;
      if (end > 0) {
        const lines = bytes.subarray(0, end);
        threads.send(lines, row);
        row += countNewlines(lines);
      }
      carry = Buffer.from(bytes.subarray(end));
      await threads.waitForRoom();
    }
    if (carry.length > 0) throw new Error('the records file does not end with a newline');
    return await threads.finish();
  } catch (error) {
    await threads.terminate();
    throw error;
  } finally {
    await file.close();
  }
}

function countNewlines(bytes: Uint8Array): number {
  let count = 0;
  for (let i = bytes.indexOf(0x0a); i >= 0; i = bytes.indexOf(0x0a, i + 1)) count++;
  return count;
}
