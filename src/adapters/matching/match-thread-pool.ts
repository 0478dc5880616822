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
import { TaskPool } from '../threads/task-pool.ts';
import type { MatchTask } from './match-thread.worker.ts';

/**
 * A matching thread's own heap: it holds its decoded dictionaries and caches (30-40 MB for a
 * 1M-voter file) and one block at a time. Without a limit V8 lets each thread's heap grow to
 * hundreds of MB of garbage before collecting; with it, threads cost tens of MB each, for a few
 * percent more time in garbage collection. The index itself is shared memory, outside the heap.
 * The young generation: 16 MB saves 40 MB of peak RSS at 2 threads over 32 MB at the same speed
 * (1M voters, 100k rows); 8 MB saves 70 MB but costs 10% more time.
 */
const THREAD_HEAP_LIMITS = { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 16 };

/** Rows below which a batch is matched on one thread: splitting costs more than it saves. */
const MIN_ROWS_PER_THREAD = 64;
/** Rows of candidate search and scoring that compile a thread's matching code (see sampleWarming). */
const WARM_UP_ROWS = 250;

/**
 * Worker threads that match against one voter snapshot (a task pool of match-thread.worker.ts).
 * The index's typed arrays are handed over as SharedArrayBuffers, so every thread reads the same
 * memory. They match whole blocks of a list (parse → match → format) when they hold the voter
 * snapshot too, or chunks of a batch of rows: one contiguous chunk per thread, reassembled in
 * row order.
 */
export class MatchThreadPool implements PersonMatchRunner {
  private readonly pool: TaskPool<MatchTask, unknown>;
  /** Whether its threads hold the voter snapshot, so they can run blocks. */
  readonly runsBlocks: boolean;
  /** Whether a sample has warmed every thread up (see sampleWarming). */
  private warmed = false;

  /**
   * `snapshot`: the voter snapshot's shared form (VoterSnapshot.shared), so that the threads can
   * run whole blocks of a list; null: they match rows only.
   */
  constructor(index: MatchIndex, threads: number, snapshot: object | null = null) {
    const { meta, parts } = matchIndexParts(index);
    const shared: Record<string, Uint8Array> = {};
    for (const [name, part] of parts) shared[name] = toShared(part);
    this.runsBlocks = snapshot !== null;
    this.pool = new TaskPool(new URL('./match-thread.worker.ts', import.meta.url), threads, {
      workerData: { meta: meta satisfies MatchIndexMeta, parts: shared, snapshot },
      resourceLimits: THREAD_HEAP_LIMITS,
    });
  }

  get threads(): number {
    return this.pool.threads;
  }

  /** A thread died (out of memory, a bug): this pool cannot serve more work; make a new one. */
  get broken(): boolean {
    return this.pool.failed;
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
   * The sample's pattern counts. A thread's first real work (the candidate search and scoring the
   * sample runs through) is slow until its code is compiled, which matters for a list only a few
   * times longer than the threads are many. So the pool's first sample, when too small to give
   * every thread WARM_UP_ROWS of its own, is counted by every thread on the whole of it (the counts
   * are the same on every thread; the first's are returned). Other samples are shared out as
   * `sample` does.
   */
  async sampleWarming(rows: readonly MatchInput[], job: SampleJob): Promise<PatternCountsData> {
    const shares = this.warmed || rows.length >= WARM_UP_ROWS * this.threads;
    this.warmed = true;
    if (shares) return await this.sample(rows, job);
    const counts = await Promise.all(
      Array.from({ length: this.threads }, (_, i) => this.pool.runOn(i, { kind: 'sample', rows, job })),
    );
    return counts[0] as PatternCountsData;
  }

  /**
   * One block of a list, parsed, matched and formatted on the least busy thread. Its bytes are
   * moved to that thread (the block must not be used here afterwards).
   */
  async runBlock(block: CsvBlock, spec: BlockSpec, job: PersonMatchJob): Promise<BlockResult> {
    if (!this.runsBlocks) throw new Error('these matching threads were started without the voter file');
    if (this.pool.failed) throw new Error('a matching thread died; the job is retried on new threads');
    return (await this.pool.run({ kind: 'block', block, spec, job }, [
      block.bytes.buffer as ArrayBuffer,
    ])) as BlockResult;
  }

  /** One contiguous chunk of rows per thread; the results in chunk order. */
  private async split<T>(
    rows: readonly MatchInput[],
    task: (chunk: MatchInput[]) => MatchTask,
  ): Promise<T[]> {
    if (this.pool.isClosed) throw new Error('the matching threads are closed');
    if (this.pool.failed) throw new Error('a matching thread died; the job is retried on new threads');
    const chunks = Math.max(1, Math.min(this.threads, Math.floor(rows.length / MIN_ROWS_PER_THREAD)));
    const size = Math.ceil(rows.length / chunks);
    const parts: Promise<T>[] = [];
    for (let c = 0; c < chunks; c++) {
      parts.push(this.pool.runOn(c, task(rows.slice(c * size, (c + 1) * size))) as Promise<T>);
    }
    return await Promise.all(parts);
  }

  /** Test hook and last resort: ends one thread as a crash would. */
  async terminateOne(): Promise<void> {
    await this.pool.terminateOne();
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}

/** The part itself when it already lives in shared memory, else a shared copy. */
function toShared(part: Uint8Array): Uint8Array {
  if (part.buffer instanceof SharedArrayBuffer) return part;
  const shared = new Uint8Array(new SharedArrayBuffer(part.byteLength));
  shared.set(part);
  return shared;
}
