import { Agent, get } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * An open-loop load: requests sent at a steady `rate`, each at its own scheduled time whether or
 * not earlier ones were answered, over at most `connections` kept-alive connections (a request
 * finding every connection busy waits for one, on this side). A request's latency runs from its
 * scheduled time to the end of its response, so time spent waiting behind slow answers counts
 * (no coordinated omission).
 *
 * Why not autocannon's `overallRate`: it gives each connection a quota per second, which the
 * connection spends back to back at the start of each second and then idles (httpClient.js
 * `reqsMadeThisSecond`): 2,000 requests a second arrive as a burst at full concurrency for most
 * of the second, so its latencies are those of a saturated server. It also records each latency
 * with an "expected interval" of ceil(1 / rate) = 1 ms (seconds taken for milliseconds), adding
 * a sample for every millisecond of a slow response.
 */
export interface OpenLoopResult {
  sent: number;
  /** 2xx answers. */
  ok: number;
  /** Other answers, connection errors and timeouts. */
  failed: number;
  /** Answers per second over the run. */
  rate: number;
  p50: number;
  p99: number;
  max: number;
  /** Each answered request's end (ms since the epoch) and latency (ms), in answer order. */
  responses: { at: number; ms: number }[];
  /**
   * This process's own event-loop delay (ms, p99 and max): the sender shares the machine, and a
   * pause of its own delays requests it should have sent, which then count as slow answers.
   */
  senderDelayP99: number;
  senderDelayMax: number;
}

export async function openLoop(options: {
  url: string;
  paths: readonly string[];
  headers: Record<string, string>;
  rate: number;
  durationSeconds: number;
  connections: number;
  timeoutMs?: number;
  /** Stops the load early (the run ends once the requests sent so far are answered). */
  signal?: AbortSignal;
}): Promise<OpenLoopResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections });
  const total = Math.round(options.rate * options.durationSeconds);
  const interval = 1000 / options.rate;
  const responses: { at: number; ms: number }[] = [];
  let sent = 0;
  let ok = 0;
  let failed = 0;
  let pending = 0;
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const started = performance.now();
  const epochOffset = Date.now() - started;
  const send = (scheduled: number) => {
    pending++;
    const path = options.paths[sent % options.paths.length]!;
    sent++;
    // Settled once: a timeout destroys the request, which may also end its response in error.
    let settled = false;
    const done = (success: boolean) => {
      if (settled) return;
      settled = true;
      const end = performance.now();
      if (success) {
        ok++;
        responses.push({ at: epochOffset + end, ms: end - scheduled });
      } else failed++;
      pending--;
      if (pending === 0 && (sent >= total || options.signal?.aborted === true)) finish();
    };
    const request = get(`${options.url}${path}`, { agent, headers: options.headers }, (response) => {
      response.resume();
      response.on('end', () => done((response.statusCode ?? 0) >= 200 && (response.statusCode ?? 0) < 300));
      response.on('error', () => done(false));
    });
    request.setTimeout(options.timeoutMs ?? 10_000, () => request.destroy(new Error('timeout')));
    request.on('error', () => done(false));
  };
  // Wakes about every millisecond and sends every request whose time has come.
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (sent < total && options.signal?.aborted !== true && started + sent * interval <= now)
        send(started + sent * interval);
      if (sent >= total || options.signal?.aborted === true) {
        resolve();
        return;
      }
      setTimeout(tick, Math.max(0, Math.min(1, started + sent * interval - performance.now())));
    };
    tick();
  });
  if (pending > 0) await finished;
  agent.destroy();
  delay.disable();
  const seconds = (performance.now() - started) / 1000;
  return {
    sent,
    ok,
    failed,
    rate: ok / seconds,
    ...latencyOf(responses.map((r) => r.ms)),
    responses,
    senderDelayP99: delay.percentile(99) / 1e6,
    senderDelayMax: delay.max / 1e6,
  };
}

/** The count, p50, p99 and largest of latencies (ms; NaN for none). */
export function latencyOf(latencies: number[]): { count: number; p50: number; p99: number; max: number } {
  const ms = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))] ?? Number.NaN;
  return { count: ms.length, p50: at(0.5), p99: at(0.99), max: ms.at(-1) ?? Number.NaN };
}
