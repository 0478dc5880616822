import type pg from 'pg';
import { createPgBossQueue, type PgBossQueue } from '../../src/adapters/queue/pg-boss-queue.ts';

/**
 * One driver per candidate queue library, each doing the same few things the way that library
 * means them to be done, so `run.ts` can time them side by side. The candidates that were not
 * chosen are not dependencies of the project: install them for a run with
 *   npm install --no-save pg-boss@12.35.0 graphile-worker@0.18.0 bullmq@6.7.0 ioredis@6.0.0
 * They are imported by a computed name and typed here by the little of their API that is used, so
 * `tsc` passes without them.
 */

/** What every benchmark message carries: an id to look it up by, and when it was enqueued. */
export interface Payload {
  jobId: string;
  i: number;
  /** performance.now() just before the enqueue call (same process as the consumer). */
  sentAt: number;
}

export type Handler = (payload: Payload) => Promise<void>;

export interface EnqueueOptions {
  /** Epoch ms before which the message must not run. */
  runAt?: number;
  maxAttempts?: number;
}

export interface Tuning {
  /** Lease without a heartbeat, in ms: how long a dead consumer keeps its message. */
  leaseMs: number;
  /** How often the recovery sweep runs, in ms (pg-boss supervisor, BullMQ stalled check). */
  sweepMs: number;
  /** The fallback poll when no wake-up arrives, in ms. */
  pollMs: number;
}

export const FAST_RECOVERY: Tuning = { leaseMs: 10_000, sweepMs: 2_000, pollMs: 500 };

export interface QueueDriver {
  readonly label: string;
  /** Installs the library's schema and declares the queues. */
  setup(queues: readonly string[]): Promise<void>;
  enqueue(queue: string, payload: Payload, options?: EnqueueOptions): Promise<void>;
  /** The library's batch insert. */
  enqueueBatch(queue: string, payloads: readonly Payload[]): Promise<void>;
  /**
   * `consumers` pull loops (claim one, complete it) until `count` messages are done; for a library
   * without a pull API, its runner with one job at a time per runner.
   */
  drain(queue: string, count: number, consumers: number): Promise<void>;
  /** The library's own push consumer (LISTEN/NOTIFY or blocking pop), one job at a time. */
  consume(queue: string, handler: Handler): Promise<() => Promise<void>>;
  /** Enqueues on our own pg client (inside our transaction), or null when the library cannot. */
  readonly enqueueWith: ((client: pg.ClientBase, queue: string, payload: Payload) => Promise<void>) | null;
  /** Messages of the queue still stored, in any state. */
  stored(queue: string): Promise<number>;
  /** Messages of the queue that failed for good and are kept (the dead-letter view). */
  dead(queue: string): Promise<number>;
  close(): Promise<void>;
}

export const DRIVERS = ['pg-boss', 'graphile-worker', 'bullmq-redis', 'bullmq-pg', 'adapter'] as const;
export type DriverName = (typeof DRIVERS)[number];

export interface Target {
  pgUrl: string;
  redisUrl: string;
  /** Key prefix of this run in Redis, so a run touches only its own keys. */
  redisPrefix: string;
}

const INSTALL_HINT =
  'npm install --no-save pg-boss@12.35.0 graphile-worker@0.18.0 bullmq@6.7.0 ioredis@6.0.0';

async function load<T>(name: string): Promise<T> {
  try {
    return (await import(name)) as T;
  } catch (error) {
    throw new Error(`cannot load ${name} (${(error as Error).message}); install it with: ${INSTALL_HINT}`);
  }
}

export async function createDriver(name: DriverName, target: Target, tuning: Tuning): Promise<QueueDriver> {
  switch (name) {
    case 'pg-boss':
      return PgBossDriver.create(target, tuning);
    case 'graphile-worker':
      return GraphileDriver.create(target, tuning);
    case 'bullmq-redis':
    case 'bullmq-pg':
      return BullDriver.create(name, target, tuning);
    case 'adapter':
      return AdapterDriver.create(target, tuning);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// pg-boss 12

interface BossJob {
  id: string;
  data: Payload;
  retryCount: number;
}
interface BossDb {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}
interface Boss {
  on(event: 'error', listener: (error: Error) => void): void;
  start(): Promise<unknown>;
  stop(options?: { graceful?: boolean; close?: boolean; timeout?: number }): Promise<void>;
  createQueue(name: string, options?: Record<string, unknown>): Promise<void>;
  send(name: string, data: object, options?: Record<string, unknown>): Promise<string | null>;
  insert(name: string, jobs: { data: object }[]): Promise<unknown>;
  fetch(name: string, options?: Record<string, unknown>): Promise<BossJob[]>;
  complete(name: string, id: { id: string; retryCount: number }): Promise<unknown>;
  work(
    name: string,
    options: Record<string, unknown>,
    handler: (jobs: BossJob[]) => Promise<void>,
  ): Promise<string>;
  offWork(name: string, options?: { id?: string; wait?: boolean }): Promise<void>;
  getDb(): BossDb;
}

class PgBossDriver implements QueueDriver {
  readonly label = 'pg-boss 12.35 (PostgreSQL)';
  private readonly boss: Boss;
  private readonly tuning: Tuning;

  private constructor(boss: Boss, tuning: Tuning) {
    this.boss = boss;
    this.tuning = tuning;
  }

  static async create(target: Target, tuning: Tuning): Promise<PgBossDriver> {
    const { PgBoss } = await load<{ PgBoss: new (options: object) => Boss }>('pg-boss');
    const boss = new PgBoss({
      connectionString: target.pgUrl,
      max: 10,
      schedule: false,
      // Lapsed heartbeats are failed (and retried) by the monitor pass, which runs at the longer of
      // these two intervals (60 s by default): both set to the sweep interval.
      superviseIntervalSeconds: Math.max(1, Math.round(tuning.sweepMs / 1000)),
      monitorIntervalSeconds: Math.max(1, Math.round(tuning.sweepMs / 1000)),
      useListenNotify: true,
    });
    boss.on('error', (error) => console.error(`pg-boss: ${error.message}`));
    await boss.start();
    return new PgBossDriver(boss, tuning);
  }

  async setup(queues: readonly string[]): Promise<void> {
    for (const name of queues) {
      await this.boss.createQueue(name, {
        retryLimit: 2,
        retryDelay: 0,
        // The heartbeat is the lease; expireInSeconds only caps a job's total run time.
        heartbeatSeconds: Math.max(10, Math.round(this.tuning.leaseMs / 1000)),
        expireInSeconds: 3600,
        notify: true,
      });
    }
  }

  async enqueue(queue: string, payload: Payload, options: EnqueueOptions = {}): Promise<void> {
    await this.boss.send(queue, payload, {
      ...(options.runAt === undefined ? {} : { startAfter: new Date(options.runAt) }),
      ...(options.maxAttempts === undefined ? {} : { retryLimit: options.maxAttempts - 1 }),
    });
  }

  async enqueueBatch(queue: string, payloads: readonly Payload[]): Promise<void> {
    await this.boss.insert(
      queue,
      payloads.map((data) => ({ data })),
    );
  }

  async drain(queue: string, count: number, consumers: number): Promise<void> {
    let done = 0;
    const loop = async () => {
      while (done < count) {
        const [job] = await this.boss.fetch(queue);
        if (job === undefined) {
          await sleep(5);
          continue;
        }
        await this.boss.complete(queue, { id: job.id, retryCount: job.retryCount });
        done++;
      }
    };
    await Promise.all(Array.from({ length: consumers }, loop));
  }

  async consume(queue: string, handler: Handler): Promise<() => Promise<void>> {
    const id = await this.boss.work(
      queue,
      {
        batchSize: 1,
        pollingIntervalSeconds: this.tuning.pollMs / 1000,
        notifyPollingIntervalSeconds: this.tuning.pollMs / 1000,
      },
      async ([job]) => {
        if (job) await handler(job.data);
      },
    );
    return () => this.boss.offWork(queue, { id, wait: false });
  }

  readonly enqueueWith = async (client: pg.ClientBase, queue: string, payload: Payload) => {
    await this.boss.send(queue, payload, {
      db: { executeSql: (text: string, values?: unknown[]) => client.query(text, values) },
    });
  };

  async stored(queue: string): Promise<number> {
    const { rows } = await this.boss
      .getDb()
      .executeSql('SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1', [queue]);
    return rows[0]?.['n'] as number;
  }

  async dead(queue: string): Promise<number> {
    const { rows } = await this.boss
      .getDb()
      .executeSql(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND state = 'failed'`, [queue]);
    return rows[0]?.['n'] as number;
  }

  async close(): Promise<void> {
    await this.boss.stop({ graceful: false, close: true, timeout: 2000 });
  }
}

// ---------------------------------------------------------------------------------------------
// graphile-worker 0.18

interface GraphileUtils {
  addJob(identifier: string, payload: object, spec?: Record<string, unknown>): Promise<unknown>;
  addJobs(specs: { identifier: string; payload: object }[]): Promise<unknown>;
  release(): Promise<void>;
}
interface GraphileRunner {
  stop(): Promise<void>;
}
interface GraphileModule {
  runMigrations(options: object): Promise<void>;
  makeWorkerUtils(options: object): Promise<GraphileUtils>;
  run(options: object): Promise<GraphileRunner>;
  /** Built from a log-function factory; a factory of no-ops keeps the bench output clean. */
  Logger: new (
    factory: () => () => void,
  ) => unknown;
}

class GraphileDriver implements QueueDriver {
  readonly label = 'graphile-worker 0.18 (PostgreSQL)';
  private readonly module: GraphileModule;
  private readonly utils: GraphileUtils;
  private readonly pool: pg.Pool;
  private readonly tuning: Tuning;
  private readonly pgUrl: string;
  private readonly logger: unknown;

  private constructor(
    module: GraphileModule,
    utils: GraphileUtils,
    pool: pg.Pool,
    logger: unknown,
    target: Target,
    tuning: Tuning,
  ) {
    this.module = module;
    this.logger = logger;
    this.utils = utils;
    this.pool = pool;
    this.pgUrl = target.pgUrl;
    this.tuning = tuning;
  }

  static async create(target: Target, tuning: Tuning): Promise<GraphileDriver> {
    const module = await load<GraphileModule>('graphile-worker');
    const { default: pgModule } = await import('pg');
    // graphile-worker logs every failed attempt with its payload-free error; keep the bench quiet.
    const logger = new module.Logger(() => () => {});
    await module.runMigrations({ connectionString: target.pgUrl, logger });
    const utils = await module.makeWorkerUtils({ connectionString: target.pgUrl, logger });
    const pool = new pgModule.Pool({ connectionString: target.pgUrl, max: 4 });
    return new GraphileDriver(module, utils, pool, logger, target, tuning);
  }

  async setup(): Promise<void> {}

  async enqueue(queue: string, payload: Payload, options: EnqueueOptions = {}): Promise<void> {
    await this.utils.addJob(queue, payload, {
      ...(options.runAt === undefined ? {} : { runAt: new Date(options.runAt) }),
      ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
    });
  }

  async enqueueBatch(queue: string, payloads: readonly Payload[]): Promise<void> {
    await this.utils.addJobs(payloads.map((payload) => ({ identifier: queue, payload })));
  }

  async drain(queue: string, count: number, consumers: number): Promise<void> {
    let done = 0;
    let finish: () => void = () => {};
    const finished = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const runners = await Promise.all(
      Array.from({ length: consumers }, () =>
        this.runner(queue, async () => {
          if (++done >= count) finish();
        }),
      ),
    );
    await finished;
    await Promise.all(runners.map((runner) => runner.stop()));
  }

  async consume(queue: string, handler: Handler): Promise<() => Promise<void>> {
    const runner = await this.runner(queue, handler);
    return () => runner.stop();
  }

  private runner(queue: string, handler: Handler): Promise<GraphileRunner> {
    return this.module.run({
      connectionString: this.pgUrl,
      concurrency: 1,
      noHandleSignals: true,
      pollInterval: this.tuning.pollMs,
      logger: this.logger,
      taskList: { [queue]: (payload: unknown) => handler(payload as Payload) },
    });
  }

  /** graphile_worker.add_job is the library's documented SQL API for enqueueing from SQL. */
  readonly enqueueWith = async (client: pg.ClientBase, queue: string, payload: Payload) => {
    await client.query('SELECT graphile_worker.add_job($1, $2::json)', [queue, JSON.stringify(payload)]);
  };

  async stored(queue: string): Promise<number> {
    const { rows } = await this.pool.query(
      'SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE task_identifier = $1',
      [queue],
    );
    return rows[0].n;
  }

  async dead(queue: string): Promise<number> {
    const { rows } = await this.pool.query(
      'SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE task_identifier = $1 AND attempts >= max_attempts AND locked_at IS NULL',
      [queue],
    );
    return rows[0].n;
  }

  async close(): Promise<void> {
    await this.utils.release();
    await this.pool.end();
  }
}

// ---------------------------------------------------------------------------------------------
// BullMQ 6 (Redis, and its PostgreSQL backend)

interface BullJob {
  id?: string;
  data: Payload;
  moveToCompleted(value: unknown, token: string, fetchNext?: boolean): Promise<unknown>;
}
interface BullQueue {
  add(name: string, data: object, options?: Record<string, unknown>): Promise<unknown>;
  addBulk(jobs: { name: string; data: object; opts?: Record<string, unknown> }[]): Promise<unknown>;
  getJobCounts(...states: string[]): Promise<Record<string, number>>;
  waitUntilReady(): Promise<unknown>;
  obliterate(options: { force: boolean }): Promise<void>;
  close(): Promise<void>;
}
interface BullWorker {
  getNextJob(token: string, options?: { block?: boolean }): Promise<BullJob | undefined>;
  waitUntilReady(): Promise<unknown>;
  startStalledCheckTimer(): Promise<void>;
  on(event: 'error', listener: (error: Error) => void): void;
  close(force?: boolean): Promise<void>;
}
interface BullClasses {
  Queue: new (name: string, options: object) => BullQueue;
  Worker: new (
    name: string,
    processor: ((job: BullJob) => Promise<void>) | null,
    options: object,
  ) => BullWorker;
}
interface BullModule extends BullClasses {
  withBackend(factory: unknown): BullClasses;
  createPostgresBackend: unknown;
}

class BullDriver implements QueueDriver {
  readonly label: string;
  private readonly classes: BullClasses;
  private readonly connection: object;
  private readonly prefix: string | undefined;
  private readonly tuning: Tuning;
  private readonly queues = new Map<string, BullQueue>();
  private readonly pool: pg.Pool | null;
  readonly enqueueWith: QueueDriver['enqueueWith'];

  private constructor(
    label: string,
    classes: BullClasses,
    connection: object,
    prefix: string | undefined,
    tuning: Tuning,
    pool: pg.Pool | null,
  ) {
    this.label = label;
    this.classes = classes;
    this.connection = connection;
    this.prefix = prefix;
    this.tuning = tuning;
    this.pool = pool;
    // The PostgreSQL backend has no public way to add a job on a caller's connection; its
    // internal add_job SQL function (shared with BullMQ's other language ports) can be called.
    this.enqueueWith =
      pool === null ? null : (client, queue, payload) => this.addWithInternalSql(client, queue, payload);
  }

  static async create(
    name: 'bullmq-redis' | 'bullmq-pg',
    target: Target,
    tuning: Tuning,
  ): Promise<BullDriver> {
    const module = await load<BullModule>('bullmq');
    if (name === 'bullmq-redis') {
      const url = new URL(target.redisUrl);
      const connection = { host: url.hostname, port: Number(url.port || 6379), maxRetriesPerRequest: null };
      return new BullDriver('BullMQ 6.7 (Redis 7)', module, connection, target.redisPrefix, tuning, null);
    }
    const { default: pgModule } = await import('pg');
    const pool = new pgModule.Pool({ connectionString: target.pgUrl, max: 2 });
    const classes = module.withBackend(module.createPostgresBackend);
    const connection = { connectionString: target.pgUrl, migrate: true, max: 10 };
    return new BullDriver('BullMQ 6.7 (PostgreSQL backend)', classes, connection, undefined, tuning, pool);
  }

  private options(): Record<string, unknown> {
    return { connection: this.connection, ...(this.prefix === undefined ? {} : { prefix: this.prefix }) };
  }

  private queue(name: string): BullQueue {
    let queue = this.queues.get(name);
    if (queue === undefined) {
      queue = new this.classes.Queue(name, this.options());
      this.queues.set(name, queue);
    }
    return queue;
  }

  private worker(name: string, processor: ((job: BullJob) => Promise<void>) | null): BullWorker {
    const worker = new this.classes.Worker(name, processor, {
      ...this.options(),
      concurrency: 1,
      autorun: processor !== null,
      lockDuration: this.tuning.leaseMs,
      stalledInterval: this.tuning.sweepMs,
      maxStalledCount: 5,
      drainDelay: 5,
    });
    worker.on('error', (error) => console.error(`bullmq worker: ${error.message}`));
    return worker;
  }

  async setup(queues: readonly string[]): Promise<void> {
    for (const name of queues) await this.queue(name).waitUntilReady();
  }

  async enqueue(queue: string, payload: Payload, options: EnqueueOptions = {}): Promise<void> {
    await this.queue(queue).add(queue, payload, {
      attempts: options.maxAttempts ?? 1,
      removeOnComplete: false,
      ...(options.runAt === undefined ? {} : { delay: Math.max(0, options.runAt - Date.now()) }),
    });
  }

  async enqueueBatch(queue: string, payloads: readonly Payload[]): Promise<void> {
    await this.queue(queue).addBulk(payloads.map((data) => ({ name: queue, data })));
  }

  async drain(queue: string, count: number, consumers: number): Promise<void> {
    let done = 0;
    const loop = async (n: number) => {
      const worker = this.worker(queue, null);
      await worker.waitUntilReady();
      const token = `bench-${n}`;
      try {
        while (done < count) {
          const job = await worker.getNextJob(token, { block: false });
          if (job === undefined) {
            await sleep(5);
            continue;
          }
          await job.moveToCompleted(null, token, false);
          done++;
        }
      } finally {
        await worker.close();
      }
    };
    await Promise.all(Array.from({ length: consumers }, (_, n) => loop(n)));
  }

  async consume(queue: string, handler: Handler): Promise<() => Promise<void>> {
    const worker = this.worker(queue, (job) => handler(job.data));
    await worker.waitUntilReady();
    return () => worker.close(true);
  }

  private async addWithInternalSql(client: pg.ClientBase, queue: string, payload: Payload): Promise<void> {
    await client.query('SET LOCAL search_path TO bullmq');
    await client.query(
      'SELECT add_job($1, $2, $3, $4::jsonb, $5::jsonb, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) AS id',
      [
        queue,
        '',
        queue,
        JSON.stringify(payload),
        '{}',
        0,
        0,
        Date.now(),
        1,
        null,
        null,
        null,
        null,
        null,
        false,
      ],
    );
  }

  async stored(queue: string): Promise<number> {
    const counts = await this.queue(queue).getJobCounts(
      'active',
      'completed',
      'failed',
      'delayed',
      'waiting',
      'prioritized',
    );
    return Object.values(counts).reduce((sum, n) => sum + n, 0);
  }

  async dead(queue: string): Promise<number> {
    return (await this.queue(queue).getJobCounts('failed'))['failed'] ?? 0;
  }

  async close(): Promise<void> {
    for (const queue of this.queues.values()) {
      if (this.prefix !== undefined) await queue.obliterate({ force: true });
      await queue.close();
    }
    await this.pool?.end();
  }
}

// ---------------------------------------------------------------------------------------------
// The chosen design: src/adapters/queue/pg-boss-queue.ts used as the worker uses the Queue port
// (claim, renew the lease, complete or fail), woken by its onMessageReady instead of a poll.

class AdapterDriver implements QueueDriver {
  readonly label = 'listmatch PgBossQueue (pull + NOTIFY wake-up)';
  private readonly queue: PgBossQueue;
  private readonly pool: pg.Pool;
  private readonly tuning: Tuning;

  private constructor(queue: PgBossQueue, pool: pg.Pool, tuning: Tuning) {
    this.queue = queue;
    this.pool = pool;
    this.tuning = tuning;
  }

  static async create(target: Target, tuning: Tuning): Promise<AdapterDriver> {
    const { default: pgModule } = await import('pg');
    const queue = await createPgBossQueue({
      connectionString: target.pgUrl,
      leaseMs: tuning.leaseMs,
      sweepSeconds: tuning.sweepMs / 1000,
      maxAttempts: 3,
      onError: (error) => console.error(`pg-boss: ${error.message}`),
    });
    return new AdapterDriver(queue, new pgModule.Pool({ connectionString: target.pgUrl, max: 2 }), tuning);
  }

  async setup(queues: readonly string[]): Promise<void> {
    await this.queue.declare(queues);
  }

  async enqueue(queue: string, payload: Payload, options: EnqueueOptions = {}): Promise<void> {
    await this.queue.enqueue({ type: queue, payload, ...options });
  }

  async enqueueBatch(queue: string, payloads: readonly Payload[]): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await this.queue.enqueueWith(
        client,
        payloads.map((payload) => ({ type: queue, payload })),
      );
      await client.query('COMMIT');
    } finally {
      client.release();
    }
  }

  async drain(queue: string, count: number, consumers: number): Promise<void> {
    let done = 0;
    const loop = async (n: number) => {
      const owner = `bench-${n}`;
      while (done < count) {
        const message = await this.queue.claim(owner, [queue], this.tuning.leaseMs);
        if (message === null) {
          await sleep(5);
          continue;
        }
        await this.queue.complete(message.id, owner);
        done++;
      }
    };
    await Promise.all(Array.from({ length: consumers }, (_, n) => loop(n)));
  }

  /** One job at a time, like the worker: claim on a wake-up or a poll, renew the lease while it runs. */
  async consume(queue: string, handler: Handler): Promise<() => Promise<void>> {
    const owner = `consumer-${Math.random().toString(36).slice(2)}`;
    let stopped = false;
    let wake: () => void = () => {};
    const stopListening = await this.queue.onMessageReady((type) => {
      if (type === null || type === queue) wake();
    });
    const loop = async () => {
      while (!stopped) {
        const message = await this.queue.claim(owner, [queue], this.tuning.leaseMs);
        if (message === null) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, this.tuning.pollMs);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          continue;
        }
        const heartbeat = setInterval(
          () => void this.queue.extendLease(message.id, owner, this.tuning.leaseMs),
          this.tuning.leaseMs / 3,
        );
        try {
          await handler(message.payload as Payload);
          await this.queue.complete(message.id, owner);
        } catch (error) {
          const last = message.attempt >= message.maxAttempts;
          await this.queue.fail(message.id, owner, (error as Error).message, last ? null : Date.now());
        } finally {
          clearInterval(heartbeat);
        }
      }
    };
    const running = loop();
    return async () => {
      stopped = true;
      wake();
      await stopListening();
      await Promise.race([running, sleep(1000)]);
    };
  }

  readonly enqueueWith = (client: pg.ClientBase, queue: string, payload: Payload) =>
    this.queue.enqueueWith(client, [{ type: queue, payload }]);

  async stored(queue: string): Promise<number> {
    const { rows } = await this.pool.query('SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1', [
      queue,
    ]);
    return rows[0].n;
  }

  async dead(queue: string): Promise<number> {
    return (await this.queue.stats()).byType[queue]?.dead ?? 0;
  }

  async close(): Promise<void> {
    await this.queue.close();
    await this.pool.end();
  }
}
