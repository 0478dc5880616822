import { Worker } from 'node:worker_threads';
import type { CsvBlock } from '../../domain/csv/csv-blocks.ts';
import type { MatchIndex } from '../../domain/matching/index/match-index.ts';
import { type MatchIndexMeta, matchIndexParts } from '../../domain/matching/index/match-index-parts.ts';
import type { MatchInput, MatchOutcome } from '../../domain/matching/matcher.ts';
import type {
  PersonMatchJob,
  PersonMatchRunner,
  SampleJob,
} from '../../domain/matching/probabilistic-matcher.ts';
import type { PatternCountsData } from '../../domain/matching/score/fellegi-sunter.ts';
import type { BlockResult, BlockSpec } from '../../domain/pipeline/match-block.ts';

/**
 * A matching thread's own heap: it holds its decoded dictionaries and caches (30-40 MB for a
 * 1M-voter file) and one block at a time. Without a limit V8 lets each thread's heap grow to
 * hundreds of MB of garbage before collecting; with it, threads cost tens of MB each, for a few
 * percent more time in garbage collection. The index itself is shared memory, outside the heap.
 */
const THREAD_HEAP_LIMITS = { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 32 };

/** Rows below which a batch is matched on one thread: splitting costs more than it saves. */
const MIN_ROWS_PER_THREAD = 64;

interface Pending {
  resolve: (result: never) => void;
  reject: (error: Error) => void;
}

/**
 * Worker threads that run the probabilistic strategies over chunks of a batch. The index's
 * typed arrays are handed over as SharedArrayBuffers, so every thread reads the same memory;
 * a batch is split into one contiguous chunk per thread and reassembled in row order.
 */
export class MatchThreadPool implements PersonMatchRunner {
  private readonly workers: Worker[] = [];
  private readonly pending = new Map<number, Pending>();
  /** Requests in flight per thread: a thread keeps the process alive only while it has work. */
  private readonly busy = new Map<Worker, number>();
  private readonly ready: Promise<void>;
  private nextId = 1;
  private closed = false;
  /** A thread died (out of memory, a bug): this pool cannot serve more work; make a new one. */
  broken = false;
  /** Whether its threads hold the voter snapshot, so they can run blocks. */
  readonly runsBlocks: boolean;
  /** Whether a sample has warmed every thread up (see sampleWarming). */
  private warmed = false;

  get threads(): number {
    return this.workers.length;
  }

  /**
   * `snapshot`: the voter snapshot's shared form (VoterSnapshot.shared), so that the threads can
   * run whole blocks of a list; null: they match rows only.
   */
  constructor(index: MatchIndex, threads: number, snapshot: object | null = null) {
    const { meta, parts } = matchIndexParts(index);
    const shared: Record<string, Uint8Array> = {};
    for (const [name, part] of parts) shared[name] = toShared(part);
    this.runsBlocks = snapshot !== null;
    const starting: Promise<void>[] = [];
    for (let i = 0; i < threads; i++) {
      const worker = new Worker(new URL('./match-thread.worker.ts', import.meta.url), {
        workerData: { meta: meta satisfies MatchIndexMeta, parts: shared, snapshot },
        resourceLimits: THREAD_HEAP_LIMITS,
      });
      starting.push(
        new Promise((resolve, reject) => {
          worker.once('message', () => resolve());
          worker.once('error', reject);
          worker.once('exit', (code) =>
            reject(new Error(`a matching thread exited with code ${code} while starting`)),
          );
        }),
      );
      worker.on('message', (message: { id?: number; result?: never; error?: string }) => {
        if (message.id === undefined) return;
        const waiting = this.pending.get(message.id);
        if (waiting === undefined) return;
        this.pending.delete(message.id);
        if (message.error !== undefined)
          waiting.reject(new Error(`matching thread failed: ${message.error}`));
        else waiting.resolve(message.result!);
      });
      worker.on('error', (error) => {
        this.broken = true;
        this.failAll(error);
      });
      worker.on('exit', (code) => {
        if (this.closed) return;
        this.broken = true;
        this.failAll(new Error(`a matching thread exited with code ${code}`));
      });
      this.workers.push(worker);
    }
    // Starting threads keep the process alive (a caller may be awaiting them); once started, an
    // idle thread must not: it is referenced only while it has work (see send), and close() ends it.
    this.ready = Promise.all(starting).then(() => {
      for (const worker of this.workers) if ((this.busy.get(worker) ?? 0) === 0) worker.unref();
    });
    this.ready.catch(() => {});
  }

  async run(rows: readonly MatchInput[], job: PersonMatchJob): Promise<MatchOutcome[]> {
    const parts = await this.split<MatchOutcome[]>(rows, (chunk) => ({ kind: 'match', rows: chunk, job }));
    return parts.flat();
  }

  async sample(rows: readonly MatchInput[], job: SampleJob): Promise<PatternCountsData> {
    const parts = await this.split<PatternCountsData>(rows, (chunk) => ({
      kind: 'sample',
      rows: chunk,
      job,
    }));
    return { rows: parts.reduce((n, p) => n + p.rows, 0), patterns: parts.flatMap((p) => p.patterns) };
  }

  /**
   * One block of a list, parsed, matched and formatted on the least busy thread. Its bytes are
   * moved to that thread (the block must not be used here afterwards).
   */
  async runBlock(block: CsvBlock, spec: BlockSpec, job: PersonMatchJob): Promise<BlockResult> {
    if (!this.runsBlocks) throw new Error('these matching threads were started without the voter file');
    await this.usable();
    let worker = this.workers[0]!;
    for (const candidate of this.workers) {
      if ((this.busy.get(candidate) ?? 0) < (this.busy.get(worker) ?? 0)) worker = candidate;
    }
    const bytes = block.bytes.buffer as ArrayBuffer;
    return this.send<BlockResult>(worker, { kind: 'block', block, spec, job }, [bytes]);
  }

  private async usable(): Promise<void> {
    if (this.closed) throw new Error('the matching threads are closed');
    if (this.broken) throw new Error('a matching thread died; the job is retried on new threads');
    await this.ready;
    if (this.closed) throw new Error('the matching threads are closed');
  }

  /**
   * The sample's pattern counts. The pool's first sample is counted by every thread on the whole
   * of it: each thread's first real work (the candidate search and scoring the sample runs
   * through) then finds its code compiled, which matters for a list only a few times longer than
   * the threads are many. The counts are the same on every thread; the first's are returned.
   * Later samples are shared out as `sample` does.
   */
  async sampleWarming(rows: readonly MatchInput[], job: SampleJob): Promise<PatternCountsData> {
    if (this.warmed) return await this.sample(rows, job);
    this.warmed = true;
    await this.usable();
    const counts = await Promise.all(
      this.workers.map((worker) => this.send<PatternCountsData>(worker, { kind: 'sample', rows, job })),
    );
    return counts[0]!;
  }

  /** One contiguous chunk of rows per thread; the results in chunk order. */
  private async split<T>(
    rows: readonly MatchInput[],
    message: (chunk: MatchInput[]) => object,
  ): Promise<T[]> {
    await this.usable();
    const chunks = Math.max(1, Math.min(this.workers.length, Math.floor(rows.length / MIN_ROWS_PER_THREAD)));
    const size = Math.ceil(rows.length / chunks);
    const parts: Promise<T>[] = [];
    for (let c = 0; c < chunks; c++) {
      parts.push(this.send<T>(this.workers[c]!, message(rows.slice(c * size, (c + 1) * size))));
    }
    return Promise.all(parts);
  }

  /** Test hook and last resort: ends one thread as a crash would. */
  async terminateOne(): Promise<void> {
    await this.workers[0]?.terminate();
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.workers.map((w) => w.terminate()));
    this.failAll(new Error('the matching threads were closed'));
  }

  private send<T>(worker: Worker, message: object, transfer: ArrayBuffer[] = []): Promise<T> {
    const id = this.nextId++;
    const busy = this.busy.get(worker) ?? 0;
    if (busy === 0) worker.ref();
    this.busy.set(worker, busy + 1);
    const done = () => {
      const left = (this.busy.get(worker) ?? 1) - 1;
      this.busy.set(worker, left);
      if (left === 0) worker.unref();
    };
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (result: never) => void, reject });
      worker.postMessage({ id, ...message }, transfer);
    }).finally(done);
  }

  private failAll(error: Error): void {
    for (const [, waiting] of this.pending) waiting.reject(error);
    this.pending.clear();
  }
}

/** The part itself when it already lives in shared memory, else a shared copy. */
function toShared(part: Uint8Array): Uint8Array {
  if (part.buffer instanceof SharedArrayBuffer) return part;
  const shared = new Uint8Array(new SharedArrayBuffer(part.byteLength));
  shared.set(part);
  return shared;
}
