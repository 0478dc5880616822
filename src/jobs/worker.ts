import type { FastifyBaseLogger } from 'fastify';
import { newId } from '../domain/ids.ts';
import type { ClaimedMessage, Queue } from '../domain/ports/queue.ts';
import type { JobRegistry } from './registry.ts';

export interface WorkerOptions {
  queue: Queue;
  registry: JobRegistry;
  logger: FastifyBaseLogger;
  leaseMs: number;
  pollMs: number;
  concurrency: number;
  /** Periodic housekeeping (expiring registrations), run every `housekeepingMs`. */
  housekeeping?: () => void | Promise<void>;
  housekeepingMs?: number;
  /**
   * The types to claim, in tiers: a tier is tried only when the ones before it had nothing (a
   * worker takes chunks of the voter shards it holds before others). Default: the registry's types.
   */
  claimTiers?: () => Promise<string[][]>;
  /** A message was claimed `waitMs` after it became runnable (queue latency, per queue). */
  onClaimed?: (type: string, waitMs: number) => void;
  /** A message's handler ended: `done`, `retry`, `dead` or `interrupted`, after `ms`. */
  onFinished?: (type: string, outcome: 'done' | 'retry' | 'dead' | 'interrupted', ms: number) => void;
}

/**
 * Takes messages from the queue and runs their job modules, `concurrency` at a time. Leases are
 * renewed while a job runs, so a crash (even SIGKILL) hands the message to the next worker once
 * the lease runs out. On stop, running jobs get a grace period, then are handed back.
 */
export class Worker {
  readonly id = newId('wrk');
  private readonly options: WorkerOptions;
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private filling = false;
  private refill = false;
  /** The fill in progress, which stop() waits for (its claim may return a message). */
  private fillDone: Promise<void> | null = null;
  private stopped = true;
  private timer: NodeJS.Timeout | null = null;
  private housekeepingTimer: NodeJS.Timeout | null = null;
  private unsubscribe: Promise<(() => Promise<void>) | null> | null = null;

  constructor(options: WorkerOptions) {
    this.options = options;
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
    const { queue, logger } = this.options;
    if (queue.onMessageReady !== undefined) {
      // Only a hint: without it (LISTEN refused, connection lost) the poll still finds every message.
      this.unsubscribe = queue
        .onMessageReady(() => this.wake())
        .catch((error: unknown) => {
          logger.warn({ err: error }, 'queue notifications unavailable; polling only');
          return null;
        });
    }
    if (this.options.housekeeping) {
      this.runHousekeeping();
      this.housekeepingTimer = setInterval(
        () => this.runHousekeeping(),
        this.options.housekeepingMs ?? 60_000,
      );
      this.housekeepingTimer.unref();
    }
  }

  async stop(graceMs: number): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.housekeepingTimer) clearInterval(this.housekeepingTimer);
    const unsubscribe = await this.unsubscribe;
    this.unsubscribe = null;
    await unsubscribe?.().catch(() => {});
    // A claim that was on its way when the worker stopped: its message goes back, not to a job
    // that would outlive the stop (and the database connection behind it).
    await this.fillDone;
    const all = Promise.allSettled([...this.running.values()].map((r) => r.done));
    const timedOut = await Promise.race([
      all.then(() => false),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(true), graceMs).unref()),
    ]);
    if (timedOut) {
      for (const [id, run] of this.running) {
        run.controller.abort(new Error('worker shutting down'));
        await this.options.queue.release(id, this.id);
      }
      await all;
    }
  }

  /** Looks for work now rather than at the next poll (a message was enqueued somewhere). */
  wake(): void {
    // schedule() does nothing once stopped, and a fill already running takes it as a refill.
    if (this.running.size < this.options.concurrency) this.schedule(0);
  }

  /** Number of jobs running now. */
  get busy(): number {
    return this.running.size;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.fill(), delayMs);
  }

  private fill(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    // Claims are async: one fill at a time, or two could both see a free slot and over-claim.
    if (this.filling) {
      this.refill = true;
      return Promise.resolve();
    }
    this.filling = true;
    this.fillDone = this.fillSlots().finally(() => {
      this.fillDone = null;
    });
    return this.fillDone;
  }

  private async fillSlots(): Promise<void> {
    try {
      const tiers = (await this.options.claimTiers?.()) ?? [this.options.registry.types()];
      // Messages whose worker died on every attempt: record the failure where clients see it.
      for (const message of await this.options.queue.reapExhausted([...new Set(tiers.flat())])) {
        void this.giveUp(message, new Error('the worker stopped during every attempt'));
      }
      while (this.running.size < this.options.concurrency) {
        let message: ClaimedMessage | null = null;
        for (const types of tiers) {
          message = await this.options.queue.claim(this.id, types, this.options.leaseMs);
          if (message !== null) break;
        }
        if (message === null) break;
        if (this.stopped) {
          await this.options.queue.release(message.id, this.id);
          break;
        }
        if (message.runnableAt !== undefined) {
          this.options.onClaimed?.(message.type, Math.max(0, Date.now() - message.runnableAt));
        }
        this.launch(message);
      }
    } catch (error) {
      this.options.logger.error({ err: error }, 'queue claim failed');
    } finally {
      this.filling = false;
    }
    if (this.refill) {
      this.refill = false;
      this.schedule(0);
    } else {
      this.schedule(this.options.pollMs);
    }
  }

  private launch(message: ClaimedMessage): void {
    const controller = new AbortController();
    const done = this.execute(message, controller).finally(() => {
      this.running.delete(message.id);
      this.schedule(0);
    });
    this.running.set(message.id, { controller, done });
  }

  private async execute(message: ClaimedMessage, controller: AbortController): Promise<void> {
    const { queue, registry, logger, leaseMs } = this.options;
    const module = registry.get(message.type)!;
    const log = logger.child({ queueMessage: message.id, jobType: message.type, attempt: message.attempt });
    const heartbeat = setInterval(
      () => {
        queue.extendLease(message.id, this.id, leaseMs).then(
          (kept) => {
            if (!kept) controller.abort(new Error('lease lost'));
          },
          // The queue is unreachable for now: keep working; the next beat tries again, and a lease
          // that runs out meanwhile is noticed by the next successful one.
          (error: unknown) => log.warn({ err: error }, 'could not extend the lease'),
        );
      },
      Math.max(250, Math.floor(leaseMs / 3)),
    );
    heartbeat.unref();
    const parsed = module.payload.safeParse(message.payload);
    const started = Date.now();
    let outcome: 'done' | 'retry' | 'dead' | 'interrupted' = 'done';
    try {
      if (!parsed.success) throw new Error(`invalid payload for ${message.type}: ${parsed.error.message}`);
      await module.handle(parsed.data, {
        attempt: message.attempt,
        isFinalAttempt: message.attempt >= message.maxAttempts,
        signal: controller.signal,
      });
      await queue.complete(message.id, this.id);
    } catch (error) {
      if (controller.signal.aborted) {
        outcome = 'interrupted';
        log.warn({ reason: String(controller.signal.reason) }, 'job interrupted; it will run again');
        return;
      }
      const reason = error instanceof Error ? error.message : String(error);
      if (message.attempt < message.maxAttempts) {
        outcome = 'retry';
        log.warn({ err: error }, 'job failed; retrying');
        // A platform that asked us to wait (Retry-After, a throttle) gets at least that long.
        const delay = Math.max(module.backoffMs(message.attempt), requestedWaitOf(error));
        await queue.fail(message.id, this.id, reason, Date.now() + delay);
      } else {
        outcome = 'dead';
        log.error({ err: error }, 'job failed on its last attempt; dead-lettered');
        // Record the failure first: a crash between the two leaves the message to be reaped,
        // which records it again (onGiveUp is idempotent), never a job stuck in processing.
        try {
          await this.giveUp(message, error);
        } finally {
          await queue.fail(message.id, this.id, reason, null);
        }
      }
    } finally {
      clearInterval(heartbeat);
      this.options.onFinished?.(message.type, outcome, Date.now() - started);
    }
  }

  private async giveUp(message: ClaimedMessage, error: unknown): Promise<void> {
    const module = this.options.registry.get(message.type);
    const parsed = module?.payload.safeParse(message.payload);
    if (module === undefined || parsed === undefined || !parsed.success) return;
    try {
      await module.onGiveUp?.(parsed.data, error);
    } catch (failure) {
      this.options.logger.error(
        { err: failure, queueMessage: message.id },
        'recording a dead-lettered job failed',
      );
    }
  }

  private runHousekeeping(): void {
    const fail = (error: unknown) => this.options.logger.error({ err: error }, 'housekeeping failed');
    try {
      Promise.resolve(this.options.housekeeping?.()).catch(fail);
    } catch (error) {
      fail(error);
    }
  }
}

/** The wait an error asks for (a PlatformError's `waitMs`: Retry-After or a throttle), or 0. */
function requestedWaitOf(error: unknown): number {
  const wait = (error as { waitMs?: unknown } | null)?.waitMs;
  return typeof wait === 'number' && Number.isFinite(wait) && wait > 0 ? wait : 0;
}
