import { type ResourceLimits, Worker } from 'node:worker_threads';

/**
 * Worker threads that run one script and answer tasks: each task goes to the thread with the
 * fewest tasks queued, and its answer comes back as a promise. A thread that fails breaks the
 * pool (every task in flight and later fails): the caller's job fails and is retried on a new one.
 *
 * The script answers with `serveTasks` (task-server.ts). Idle threads do not keep the process
 * alive; a thread is referenced only while it has tasks.
 */
export class TaskPool<Task, Answer> {
  private readonly workers: Worker[] = [];
  private readonly busy = new Map<Worker, number>();
  private readonly pending = new Map<
    number,
    { resolve: (answer: Answer) => void; reject: (error: Error) => void }
  >();
  private nextId = 1;
  private closed = false;
  private failure: Error | null = null;

  constructor(
    script: URL,
    threads: number,
    options: { workerData?: unknown; resourceLimits?: ResourceLimits } = {},
  ) {
    const starting: Promise<void>[] = [];
    for (let i = 0; i < Math.max(1, threads); i++) {
      const worker = new Worker(script, {
        workerData: options.workerData,
        ...(options.resourceLimits === undefined ? {} : { resourceLimits: options.resourceLimits }),
      });
      starting.push(
        new Promise((resolve, reject) => {
          worker.once('message', () => resolve());
          worker.once('error', reject);
        }),
      );
      worker.on('message', (message: { id?: number; answer?: Answer; error?: string }) => {
        if (message.id === undefined) return;
        const waiting = this.pending.get(message.id);
        if (waiting === undefined) return;
        this.pending.delete(message.id);
        if (message.error !== undefined) waiting.reject(new Error(message.error));
        else waiting.resolve(message.answer!);
      });
      worker.on('error', (error) => this.fail(error));
      worker.on('exit', (code) => {
        if (!this.closed) this.fail(new Error(`a worker thread exited with code ${code}`));
      });
      this.workers.push(worker);
    }
    // A thread is referenced until it has started (its start would otherwise not hold the process).
    Promise.all(starting).then(
      () => {
        for (const worker of this.workers) if ((this.busy.get(worker) ?? 0) === 0) worker.unref();
      },
      () => {},
    );
  }

  get threads(): number {
    return this.workers.length;
  }

  /** Whether a thread failed: the pool serves no more tasks (start a new one). */
  get failed(): boolean {
    return this.failure !== null && !this.closed;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Runs a task on the least busy thread; `transfer` moves those buffers there instead of copying. */
  async run(task: Task, transfer: ArrayBuffer[] = []): Promise<Answer> {
    let worker = this.workers[0]!;
    for (const candidate of this.workers) {
      if ((this.busy.get(candidate) ?? 0) < (this.busy.get(worker) ?? 0)) worker = candidate;
    }
    return await this.send(worker, task, transfer);
  }

  /** Runs a task on thread `index` (0 … threads - 1). */
  async runOn(index: number, task: Task, transfer: ArrayBuffer[] = []): Promise<Answer> {
    const worker = this.workers[index];
    if (worker === undefined) throw new RangeError(`no worker thread ${index}`);
    return await this.send(worker, task, transfer);
  }

  /** Test hook and last resort: ends one thread as a crash would. */
  async terminateOne(): Promise<void> {
    await this.workers[0]?.terminate();
  }

  private async send(worker: Worker, task: Task, transfer: ArrayBuffer[]): Promise<Answer> {
    if (this.failure !== null) throw this.failure;
    if (this.closed) throw new Error('the worker threads are closed');
    const id = this.nextId++;
    const busy = this.busy.get(worker) ?? 0;
    if (busy === 0) worker.ref();
    this.busy.set(worker, busy + 1);
    try {
      return await new Promise<Answer>((resolve, reject) => {
        this.pending.set(id, { resolve, reject });
        worker.postMessage({ id, task }, transfer);
      });
    } finally {
      const left = (this.busy.get(worker) ?? 1) - 1;
      this.busy.set(worker, left);
      if (left === 0 && !this.closed) worker.unref();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.workers.map((worker) => worker.terminate()));
    this.fail(new Error('the worker threads were closed'));
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const [, waiting] of this.pending) waiting.reject(error);
    this.pending.clear();
  }
}
