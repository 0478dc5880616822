import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { idlePause } from './idle-pause.ts';

/** Requests arriving every millisecond, each holding the thread `busyMs` (over 1: never quiet), until stopped. */
function arrivingRequests(busyMs: number): { count: () => number; stop: () => void; stopped: () => boolean } {
  let count = 0;
  let stopped = false;
  const timer = setInterval(() => {
    count++;
    const until = performance.now() + busyMs;
    while (performance.now() < until) {
      // The request's work.
    }
  }, 1);
  return {
    count: () => count,
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
    stopped: () => stopped,
  };
}

/** Resolves `promise`, or fails the test after `ms` (a pause that never resolves). */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still waiting after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('idlePause', () => {
  it('goes on at once when no request came during the step (no poll of the loop)', async () => {
    // A poll would take 60 s: only the no-arrival path resolves in time.
    const pause = idlePause(() => 0, { pollMs: 60_000 });
    for (let step = 0; step < 3; step++) await within(pause(), 5000, 'a pause with no requests');
  });

  it('waits while requests keep coming, and goes on once they stop', async () => {
    const requests = arrivingRequests(1.5);
    const pause = idlePause(requests.count, { maxWaitMs: 60_000 });
    setTimeout(() => requests.stop(), 150);
    // The step: requests arrive during it.
    await new Promise((resolve) => setTimeout(resolve, 20));
    await within(pause(), 10_000, 'a pause after the requests stopped');
    assert.equal(requests.stopped(), true, 'the step went on while requests kept the thread busy');
    assert.ok(requests.count() > 20, `requests were answered meanwhile (${requests.count()})`);
  });

  it('without a count of the requests, waits for a quiet poll: at once on an idle thread, after the requests on a busy one', async () => {
    await within(idlePause(null)(), 5000, 'a pause on an idle thread');
    const requests = arrivingRequests(1.5);
    const pause = idlePause(null, { maxWaitMs: 60_000 });
    setTimeout(() => requests.stop(), 150);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await within(pause(), 10_000, 'a pause after the requests stopped');
    assert.equal(requests.stopped(), true, 'the step went on while requests kept the thread busy');
  });

  it('goes on after maxWaitMs when the thread is never quiet', async () => {
    const requests = arrivingRequests(1.5);
    try {
      const pause = idlePause(requests.count, { maxWaitMs: 50 });
      await new Promise((resolve) => setTimeout(resolve, 20));
      await within(pause(), 10_000, 'a pause on a thread never quiet');
      assert.equal(requests.stopped(), false);
    } finally {
      requests.stop();
    }
  });
});
