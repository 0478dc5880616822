import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

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
  readonly uploadBytes = new Counter({
    name: 'listmatch_upload_bytes_total',
    help: 'Bytes received by presigned uploads',
    registers: [this.registry],
  });
  readonly rowsMatched = new Counter({
    name: 'listmatch_rows_processed_total',
    help: 'Contact-list rows processed by the worker',
    registers: [this.registry],
  });

  constructor(sources: { queue?: () => { ready: number; running: number; dead: number } } = {}) {
    collectDefaultMetrics({ register: this.registry, prefix: 'listmatch_' });
    const queueStats = sources.queue;
    if (queueStats) {
      new Gauge({
        name: 'listmatch_queue_messages',
        help: 'Queue messages by state',
        labelNames: ['state'] as const,
        registers: [this.registry],
        collect() {
          const stats = queueStats();
          for (const [state, count] of Object.entries(stats)) this.set({ state }, count);
        },
      });
    }
  }
}
