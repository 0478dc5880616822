import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { QueueStats } from '../domain/ports/queue.ts';

/** Prometheus metrics of one process, in a registry of its own (no global state). */
export class Metrics {
  readonly registry = new Registry();
  readonly httpRequests = new Counter({
    name: 'listmatch_http_requests_total',
    help: 'HTTP requests by route, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: 'listmatch_http_request_duration_seconds',
    help: 'HTTP request duration by route',
    labelNames: ['route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5, 30],
    registers: [this.registry],
  });
  readonly jobTransitions = new Counter({
    name: 'listmatch_job_transitions_total',
    help: 'Job state changes by kind and new state',
    labelNames: ['kind', 'state'] as const,
    registers: [this.registry],
  });
  /** S3 mode: from an upload landing in the bucket until a worker took it (the queue latency's first part). */
  readonly uploadArrivalWait = new Histogram({
    name: 'listmatch_upload_arrival_wait_seconds',
    help: 'Time from an upload landing in object storage until a worker took it',
    buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
    registers: [this.registry],
  });
  /** From a message becoming runnable until a worker claimed it, per queue (message type). */
  readonly queueWait = new Histogram({
    name: 'listmatch_queue_wait_seconds',
    help: 'Time from a queue message becoming runnable until a worker claimed it',
    labelNames: ['queue'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300],
    registers: [this.registry],
  });
  /**
   * Time each job module's handler ran, per queue, outcome and step (the per-stage view; a
   * chunk's queue carries its place, evidence and match steps: `step` tells them apart).
   */
  readonly stageDuration = new Histogram({
    name: 'listmatch_stage_duration_seconds',
    help: 'Time a worker spent on one queue message, by queue (stage), outcome and step (a chunk: place, evidence; else empty)',
    labelNames: ['queue', 'outcome', 'step'] as const,
    buckets: [0.01, 0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600],
    registers: [this.registry],
  });
  readonly uploadBytes = new Counter({
    name: 'listmatch_upload_bytes_total',
    help: 'Bytes received by presigned uploads',
    registers: [this.registry],
  });
  readonly voterLoads = new Counter({
    name: 'listmatch_voter_snapshot_loads_total',
    help: 'Voter file snapshots (or shards) loaded into memory by this process',
    registers: [this.registry],
  });
  readonly lookupSwaps = new Counter({
    name: 'listmatch_lookup_voter_file_swaps_total',
    help: 'Voter file versions the person lookups have switched to (the first one loaded included)',
    registers: [this.registry],
  });
  readonly rowsMatched = new Counter({
    name: 'listmatch_rows_processed_total',
    help: 'Contact-list rows processed by the worker',
    registers: [this.registry],
  });

  constructor(sources: { queue?: () => Promise<QueueStats> } = {}) {
    collectDefaultMetrics({ register: this.registry, prefix: 'listmatch_' });
    const queueStats = sources.queue;
    if (queueStats) {
      // One read of the stats serves both gauges of a scrape.
      let pending: Promise<QueueStats | null> | null = null;
      const read = (): Promise<QueueStats | null> => {
        pending ??= queueStats()
          .catch(() => null)
          .finally(() => setImmediate(() => (pending = null)));
        return pending;
      };
      new Gauge({
        name: 'listmatch_queue_messages',
        help: 'Queue messages by state, all queues together',
        labelNames: ['state'] as const,
        registers: [this.registry],
        async collect() {
          const stats = await read();
          this.reset();
          if (stats === null) return; // a store that cannot answer leaves the gauge empty
          this.set({ state: 'ready' }, stats.ready);
          this.set({ state: 'running' }, stats.running);
          this.set({ state: 'dead' }, stats.dead);
        },
      });
      new Gauge({
        name: 'listmatch_queue_messages_by_queue',
        help: 'Queue messages by queue (message type) and state',
        labelNames: ['queue', 'state'] as const,
        registers: [this.registry],
        async collect() {
          const stats = await read();
          this.reset();
          if (stats === null) return;
          for (const [queue, counts] of Object.entries(stats.byType)) {
            for (const [state, count] of Object.entries(counts)) this.set({ queue, state }, count);
          }
        },
      });
    }
  }
}
