import type { FastifyBaseLogger } from 'fastify';
import { newId } from '../domain/ids.ts';
import type { ClaimedMessage, ClaimOptions, Queue } from '../domain/ports/queue.ts';
import type { JobRegistry } from './registry.ts';

/** Job types that run in slots of their own, beside the worker's `concurrency` slots. */
export interface WorkerLane {
  /** Names the lane in errors. */
  name: string;
  /** The types this lane claims; the other slots never take them. */
  types: readonly string[];
  /** Messages of these types this process runs at once. */
  concurrency: number;
  /**
   * At most this many messages of one fairness group (a key) running at once, across all workers;
   * the rest wait in the queue without a slot (ClaimOptions.maxPerGroup). Default: no limit.
   */
  maxPerGroup?: number;
}

export interface WorkerOptions {
  queue: Queue;
  registry: JobRegistry;
  logger: FastifyBaseLogger;
  leaseMs: number;
  pollMs: number;
  /** Messages run at once by the main slots (every type that no lane takes). */
  concurrency: number;
  /**
   * Types with slots of their own. A call to a client's server (a webhook) mostly waits on the
   * network, up to its timeout: in the main slots it would hold back every key's matching, so it
   * gets its own, and a cap per key so that one key's unanswered calls cannot take them all.
   */
  lanes?: readonly WorkerLane[];
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
  /**
   * A message's handler ended: `done`, `retry`, `dead` or `interrupted`, after `ms`, and the step
   * its payload names (`step`, as a chunk's place and evidence steps do; '' for none).
   */
  onFinished?: (
    type: string,
    outcome: 'done' | 'retry' | 'dead' | 'interrupted',
    ms: number,
    step: string,
  ) => void;
}

interface Run {
  controller: AbortController;
  done: Promise<void>;
}

/** One set of slots: the types it claims, how many it runs at once, and its fill loop's state. */
interface Lane {
  concurrency: number;
  claimOptions: ClaimOptions;
  /** The types to claim, in tiers (see WorkerOptions.claimTiers). */
  tiers: () => Promise<string[][]>;
  running: Map<string, Run>;
  filling: boolean;
  refill: boolean;
  /** The fill in progress, which stop() waits for (its claim may return a message). */
  fillDone: Promise<void> | null;
  timer: NodeJS.Timeout | null;
}

function lane(concurrency: number, claimOptions: ClaimOptions, tiers: () => Promise<string[][]>): Lane {
  return {
    concurrency,
    claimOptions,
    tiers,
    running: new Map(),
    filling: false,
    refill: false,
    fillDone: null,
    timer: null,
  };
}

/**
 * Takes messages from the queue and runs their job modules, `concurrency` at a time, and the types
 * of each lane in that lane's own slots. Leases are renewed while a job runs, so a crash (even
 * SIGKILL) hands the message to the next worker once the lease runs out. On stop, running jobs get
 * a grace period, then are handed back.
 */
export class Worker {
  readonly id = newId('wrk');
  private readonly options: WorkerOptions;
  /** The main slots first, then one per WorkerLane. */
  private readonly lanes: Lane[];
  private stopped = true;
  private housekeepingTimer: NodeJS.Timeout | null = null;
  private unsubscribe: Promise<(() => Promise<void>) | null> | null = null;

  constructor(options: WorkerOptions) {
    this.options = options;
    const own = new Set<string>();
    for (const { name, types } of options.lanes ?? []) {
      for (const type of types) {
        if (options.registry.get(type) === undefined)
          throw new Error(`worker lane ${name}: no handler registered for job type ${type}`);
        if (own.has(type)) throw new Error(`worker lane ${name}: job type ${type} is in two lanes`);
        own.add(type);
      }
    }
    const mainTiers = async () => {
      const tiers = (await options.claimTiers?.()) ?? [options.registry.types()];
      return tiers.map((types) => types.filter((type) => !own.has(type)));
    };
    this.lanes = [
      lane(options.concurrency, {}, mainTiers),
      ...(options.lanes ?? []).map((spec) =>
        lane(
          spec.concurrency,
          spec.maxPerGroup === undefined ? {} : { maxPerGroup: spec.maxPerGroup },
          async () => [[...spec.types]],
        ),
      ),
    ];
  }

  start(): void {
    this.stopped = false;
    for (const slots of this.lanes) this.schedule(slots, 0);
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
    for (const slots of this.lanes) if (slots.timer) clearTimeout(slots.timer);
    if (this.housekeepingTimer) clearInterval(this.housekeepingTimer);
    const unsubscribe = await this.unsubscribe;
    this.unsubscribe = null;
    await unsubscribe?.().catch(() => {});
    // A claim that was on its way when the worker stopped: its message goes back, not to a job
    // that would outlive the stop (and the database connection behind it).
    await Promise.all(this.lanes.map((slots) => slots.fillDone));
    const running = this.lanes.flatMap((slots) => [...slots.running]);
    const all = Promise.allSettled(running.map(([, run]) => run.done));
    const timedOut = await Promise.race([
      all.then(() => false),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(true), graceMs).unref()),
    ]);
    if (timedOut) {
      for (const [id, run] of running) {
        run.controller.abort(new Error('worker shutting down'));
        await this.options.queue.release(id, this.id);
      }
      await all;
    }
  }

  /** Looks for work now rather than at the next poll (a message was enqueued somewhere). */
  wake(): void {
    // schedule() does nothing once stopped, and a fill already running takes it as a refill.
    for (const slots of this.lanes) if (slots.running.size < slots.concurrency) this.schedule(slots, 0);
  }

  /** Number of jobs running now, in every lane. */
  get busy(): number {
    return this.lanes.reduce((sum, slots) => sum + slots.running.size, 0);
  }

  private schedule(slots: Lane, delayMs: number): void {
    if (this.stopped) return;
    if (slots.timer) clearTimeout(slots.timer);
    slots.timer = setTimeout(() => this.fill(slots), delayMs);
  }

  private fill(slots: Lane): Promise<void> {
    if (this.stopped) return Promise.resolve();
    // Claims are async: one fill at a time per lane, or two could both see a free slot and over-claim.
    if (slots.filling) {
      slots.refill = true;
      return Promise.resolve();
    }
    slots.filling = true;
    slots.fillDone = this.fillSlots(slots).finally(() => {
      slots.fillDone = null;
    });
    return slots.fillDone;
  }

  private async fillSlots(slots: Lane): Promise<void> {
    try {
      const tiers = await slots.tiers();
      // Messages whose worker died on every attempt: record the failure where clients see it.
      for (const message of await this.options.queue.reapExhausted([...new Set(tiers.flat())])) {
        void this.giveUp(message, new Error('the worker stopped during every attempt'));
      }
      while (slots.running.size < slots.concurrency) {
        let message: ClaimedMessage | null = null;
        for (const types of tiers) {
          message = await this.options.queue.claim(this.id, types, this.options.leaseMs, slots.claimOptions);
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
        this.launch(slots, message);
      }
    } catch (error) {
      this.options.logger.error({ err: error }, 'queue claim failed');
    } finally {
      slots.filling = false;
    }
    if (slots.refill) {
      slots.refill = false;
      this.schedule(slots, 0);
    } else {
      this.schedule(slots, this.options.pollMs);
    }
  }

  private launch(slots: Lane, message: ClaimedMessage): void {
    const controller = new AbortController();
    const done = this.execute(message, controller).finally(() => {
      slots.running.delete(message.id);
      this.schedule(slots, 0);
    });
    slots.running.set(message.id, { controller, done });
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
      this.options.onFinished?.(message.type, outcome, Date.now() - started, stepOf(message.payload));
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

/**
 * The step a message's payload names (a chunk's `place` or `evidence`), or '': a short word only,
 * since it becomes a metric label and the payload is read before its module checks it.
 */
function stepOf(payload: unknown): string {
  const step =
    typeof payload === 'object' && payload !== null ? (payload as { step?: unknown }).step : undefined;
  return typeof step === 'string' && /^[a-z][a-z-]{0,31}$/.test(step) ? step : '';
}
