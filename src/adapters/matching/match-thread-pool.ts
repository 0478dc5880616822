import type { CsvBlock } from '../../domain/csv/csv-blocks.ts';
import type { BlockOutput } from '../../domain/list-matching/block-stages.ts';
import type { BlockSpec, ListRun } from '../../domain/list-matching/list-run.ts';
import type { MatchIndex } from '../../domain/matching/index/match-index.ts';
import type { TextField } from '../../domain/matching/index/match-index-fields.ts';
import {
  type MatchIndexMeta,
  matchIndexParts,
  sharedDictionaryHandover,
} from '../../domain/matching/index/match-index-parts.ts';
import type { MatchInput, MatchOutcome } from '../../domain/matching/matcher.ts';
import type {
  PersonMatchJob,
  PersonMatchRunner,
  RowEvidence,
} from '../../domain/matching/probabilistic-matcher.ts';

import type { ShardDirectory } from '../../domain/voters/shard-directory.ts';
import type { ShardMap } from '../../domain/voters/shard-map.ts';
import { TaskPool } from '../threads/task-pool.ts';
import type { BlockStageTask, MatchTask } from './match-thread.worker.ts';

/**
 * A matching thread's own heap: it holds the decoded dictionaries and caches of each voter file
 * open on it (30-40 MB for a 1M-voter file) and one block at a time. Without a limit V8 lets each
 * thread's heap grow to hundreds of MB of garbage before collecting; with it, threads cost tens of
 * MB each, for a few percent more time in garbage collection. The index itself is shared memory,
 * outside the heap. The old generation allows 128 MB per voter file a thread may hold (at most
 * 8 × 128 MB: a process holding more shards than that holds smaller ones). The young
 * generation: 32 MB. A block's rows, outcomes and candidates live while the block is matched; at
 * 16 MB they outlived the scavenges that came every 7 MB and were promoted to the old generation
 * (a matching thread's 472 scavenges and 25 full collections over a warm-up and three passes of a
 * 50k-row list on 1M voters in 4 shards; 236 and 15 at 32 MB). 32 MB matched the same list 4-6%
 * faster sharded and 9-11% whole (old and new alternated), for 33-49 MB more peak RSS at 2
 * threads (10M voters in 10 shards: 2.43 → 2.46-2.49 GB). 8 MB, measured long before, saved 70 MB
 * against 32 and cost 10% more time.
 */
const threadHeapLimits = (sourcesKept: number) => ({
  maxOldGenerationSizeMb: 128 * Math.max(1, Math.min(8, sourcesKept)),
  maxYoungGenerationSizeMb: 32,
});

/** Rows below which a batch is matched on one thread: splitting costs more than it saves. */
const MIN_ROWS_PER_THREAD = 64;
/** Rows of candidate search and scoring that compile a thread's matching code (see sampleEvidenceWarming). */
const WARM_UP_ROWS = 250;

/**
 * The matching threads of a process (a task pool of match-thread.worker.ts), shared by every voter
 * file it matches against: the current one and the one before, or every loaded shard of a
 * sharded file. Each voter file is `open`ed on every thread (its index's typed arrays handed over
 * as SharedArrayBuffers, so every thread reads the same memory; only the dictionaries' strings
 * are decoded per thread, and a shard's copy of the file's names is handed over as numbers) and
 * served through its MatchSource. A process with many shards thus runs `threads` threads, not
 * `threads` per shard.
 */
export class MatchThreadPool {
  private readonly pool: TaskPool<MatchTask, unknown>;
  private nextSource = 1;
  /** Per field, the shared values of this thread the pool's threads hold (sharedDictionaryHandover). */
  private readonly valuesSent = new Map<TextField, number>();
  /** Whether a sample has warmed every thread up (see MatchSource.sampleEvidenceWarming). */
  warmed = false;

  /** Voter files a thread may hold at once, which sized its heap limit. */
  readonly sourcesKept: number;

  /** `sourcesKept`: voter files a thread may hold at once, which sizes its heap limit. */
  constructor(threads: number, sourcesKept = 2) {
    this.sourcesKept = sourcesKept;
    this.pool = new TaskPool(new URL('./match-thread.worker.ts', import.meta.url), threads, {
      resourceLimits: threadHeapLimits(sourcesKept),
    });
  }

  get threads(): number {
    return this.pool.threads;
  }

  /** A thread died (out of memory, a bug): this pool cannot serve more work; make a new one. */
  get broken(): boolean {
    return this.pool.failed;
  }

  get isClosed(): boolean {
    return this.pool.isClosed;
  }

  /**
   * Opens a voter file on every thread. `snapshot`: the voter snapshot's shared form
   * (VoterSnapshot.shared), so that the threads can run whole blocks of a list; null: they match
   * rows only.
   */
  open(index: MatchIndex, snapshot: object | null = null): MatchSource {
    // The dictionaries of shared values (a shard's copy of the file's names) go as their numbers
    // in shared memory, with the shared values the threads lack, instead of as text to number
    // again on every thread: the threads hold this thread's shared values, in its order.
    const { meta, parts } = matchIndexParts(index, { sharedTexts: false });
    const shared: Record<string, Uint8Array> = {};
    for (const [name, part] of parts) shared[name] = toShared(part);
    const source = this.nextSource++;
    // Each thread opens files in the order sent (every opening after the ones whose shared values
    // it does not repeat), and a task for this source waits for its opening; the tasks of files
    // already open are answered meanwhile (match-thread.worker.ts).
    // A failed opening fails those tasks ("not open on this thread").
    const opened = onEveryThread(this.pool, {
      kind: 'open',
      source,
      meta: meta satisfies MatchIndexMeta,
      parts: shared,
      handover: sharedDictionaryHandover(index, this.valuesSent),
      snapshot,
    });
    return new MatchSource(this, this.pool, source, snapshot !== null, opened);
  }

  /**
   * Gives every thread a sharded voter file's map and directory, to split lists across its shards
   * (RouterSource). The directory's arrays are shared memory (ShardDirectory.fromBytes), so the
   * threads read the very same arrays; any other arrays are copied to each thread.
   */
  openRouter(map: ShardMap, directory: ShardDirectory | null): RouterSource {
    const router = this.nextSource++;
    void onEveryThread(this.pool, { kind: 'open-router', router, map, directory: directory?.parts ?? null });
    return new RouterSource(this.pool, router);
  }

  /**
   * One block of a list through a pass's block stage (block-stages.ts) on the least busy thread:
   * `match` in voter files open on the threads, `split` with an open router, or `assemble`. Its
   * bytes are moved there (the block must not be used here afterwards).
   */
  async runBlock(task: BlockStageTask, block: CsvBlock, spec: BlockSpec): Promise<BlockOutput> {
    checkUsable(this.pool);
    return (await this.pool.run({ kind: 'block', task, block, spec }, [
      block.bytes.buffer as ArrayBuffer,
    ])) as BlockOutput;
  }

  /** Test hook and last resort: ends one thread as a crash would. */
  async terminateOne(): Promise<void> {
    await this.pool.terminateOne();
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}

/**
 * One voter file opened on a pool's threads: matches whole blocks of a list (parse → match →
 * format) or batches of a sharded list's chunk when the threads hold the voter snapshot too, or
 * chunks of a batch of rows (one contiguous chunk per thread, reassembled in row order).
 */
export class MatchSource implements PersonMatchRunner {
  private readonly owner: MatchThreadPool;
  private readonly pool: TaskPool<MatchTask, unknown>;
  private readonly source: number;
  /** Whether its threads hold the voter snapshot, so they can run blocks. */
  readonly runsBlocks: boolean;
  /** Resolves when every thread holds it (rejects when one could not open it). */
  readonly ready: Promise<void>;
  private closed = false;

  constructor(
    owner: MatchThreadPool,
    pool: TaskPool<MatchTask, unknown>,
    source: number,
    runsBlocks: boolean,
    opened: Promise<unknown>,
  ) {
    this.owner = owner;
    this.pool = pool;
    this.source = source;
    this.runsBlocks = runsBlocks;
    this.ready = opened.then(() => {});
    // Awaited by those who wait for it; a failure otherwise shows in the tasks that follow.
    this.ready.catch(() => {});
  }

  get threads(): number {
    return this.pool.threads;
  }

  /** Its number on the threads (tasks name it). */
  get id(): number {
    if (this.closed) throw new Error('the matching threads let this voter file go');
    return this.source;
  }

  /** Its pool's thread died: make a new pool. */
  get broken(): boolean {
    return this.pool.failed;
  }

  async run(rows: readonly MatchInput[], job: PersonMatchJob): Promise<MatchOutcome[]> {
    return await this.perRow<MatchOutcome>('match', rows, job);
  }

  async sampleEvidence(rows: readonly MatchInput[], job: PersonMatchJob): Promise<RowEvidence[]> {
    return await this.perRow<RowEvidence>('sample-evidence', rows, job);
  }

  /** A task whose answer is a list (one per row or person) shared out and put back in order. */
  private async perRow<T>(
    kind: 'match' | 'sample-evidence',
    rows: readonly MatchInput[],
    job: PersonMatchJob,
  ): Promise<T[]> {
    const parts = await this.split<T[]>(rows, (chunk) => ({ kind, source: this.source, rows: chunk, job }));
    return parts.flat();
  }

  /**
   * The sample's evidence (sampleEvidence). A thread's first real work (the candidate search and
   * scoring the sample runs through) is slow until its code is compiled, which matters for a list
   * only a few times longer than the threads are many. So the pool's first sample, when too small
   * to give every thread WARM_UP_ROWS of its own, is weighed by every thread on the whole of it
   * (the answers are the same on every thread; the first's are returned). Other samples are
   * shared out as `sampleEvidence` does.
   */
  async sampleEvidenceWarming(rows: readonly MatchInput[], job: PersonMatchJob): Promise<RowEvidence[]> {
    const shares = this.owner.warmed || rows.length >= WARM_UP_ROWS * this.threads;
    this.owner.warmed = true;
    if (shares) return await this.sampleEvidence(rows, job);
    this.check();
    const answers = await Promise.all(
      Array.from({ length: this.threads }, (_, i) =>
        this.pool.runOn(i, { kind: 'sample-evidence', source: this.source, rows, job }),
      ),
    );
    return answers[0] as RowEvidence[];
  }

  /**
   * One batch of a sharded list's chunk lines, matched on the least busy thread: the chunk's
   * output lines for it (sharded-list.ts matchChunkBatch).
   */
  async runChunkBatch(
    lines: readonly string[],
    columns: readonly number[],
    run: ListRun,
    job: PersonMatchJob,
  ): Promise<string> {
    if (!this.runsBlocks) throw new Error('these matching threads were started without the voter file');
    this.check();
    return (await this.pool.run({ kind: 'chunk', source: this.source, lines, columns, run, job })) as string;
  }

  /** Lets the threads drop this voter file (a shard let go, a version replaced). */
  close(): void {
    if (this.closed || this.pool.isClosed || this.pool.failed) return;
    this.closed = true;
    void onEveryThread(this.pool, { kind: 'close', source: this.source });
  }

  private check(): void {
    if (this.closed) throw new Error('the matching threads let this voter file go');
    checkUsable(this.pool);
  }

  /** One contiguous chunk of rows per thread; the results in chunk order. */
  private async split<T>(
    rows: readonly MatchInput[],
    task: (chunk: MatchInput[]) => MatchTask,
  ): Promise<T[]> {
    this.check();
    const chunks = Math.max(1, Math.min(this.threads, Math.floor(rows.length / MIN_ROWS_PER_THREAD)));
    // A batch for one thread goes to the least busy one (single lookups share every thread).
    if (chunks === 1) return [(await this.pool.run(task([...rows]))) as T];
    const size = Math.ceil(rows.length / chunks);
    const parts: Promise<T>[] = [];
    for (let c = 0; c < chunks; c++) {
      parts.push(this.pool.runOn(c, task(rows.slice(c * size, (c + 1) * size))) as Promise<T>);
    }
    return await Promise.all(parts);
  }
}

/** The part itself when it already lives in shared memory, else a shared copy. */
function toShared(part: Uint8Array): Uint8Array {
  if (part.buffer instanceof SharedArrayBuffer) return part;
  const shared = new Uint8Array(new SharedArrayBuffer(part.byteLength));
  shared.set(part);
  return shared;
}

/** A sharded voter file's map and directory opened on a pool's threads: splits blocks of lists. */
export class RouterSource {
  private readonly pool: TaskPool<MatchTask, unknown>;
  private readonly router: number;
  private closed = false;

  constructor(pool: TaskPool<MatchTask, unknown>, router: number) {
    this.pool = pool;
    this.router = router;
  }

  get threads(): number {
    return this.pool.threads;
  }

  /** Its number on the threads (tasks name it). */
  get id(): number {
    if (this.closed) throw new Error('the matching threads let this shard map go');
    return this.router;
  }

  close(): void {
    if (this.closed || this.pool.isClosed || this.pool.failed) return;
    this.closed = true;
    void onEveryThread(this.pool, { kind: 'close-router', router: this.router });
  }
}

/**
 * Sends a task to every thread: each takes its tasks in order, so what comes after it on a thread
 * finds it done, and a task that fails there fails the later ones that need it. The promise
 * resolves when every thread has run it (rejects when one failed it), for a caller that waits.
 */
function onEveryThread(pool: TaskPool<MatchTask, unknown>, task: MatchTask): Promise<unknown[]> {
  const runs = Array.from({ length: pool.threads }, (_, i) => pool.runOn(i, task));
  const all = Promise.all(runs);
  // Callers that do not wait for it learn of a failure from the tasks that follow.
  all.catch(() => {});
  return all;
}

/** Throws when the pool cannot take work: closed, or one of its threads died. */
function checkUsable(pool: TaskPool<MatchTask, unknown>): void {
  if (pool.isClosed) throw new Error('the matching threads are closed');
  if (pool.failed) throw new Error('a matching thread died; the job is retried on new threads');
}
