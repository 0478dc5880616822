import { performance } from 'node:perf_hooks';

/**
 * The pause between the steps of background work on a thread that answers requests meanwhile
 * (opening a newly published voter file beside the one in use). `arrivals`, where the thread
 * can count them, counts the requests it has been sent: when none came during the step, the next
 * step follows at once (a thread with nothing else to do opens a file at full speed). When some
 * did, or the thread cannot count them (an HTTP server's), they are answered first, and the
 * next step waits for a quiet moment: a poll of `pollMs` in which the event loop was idle at
 * least `idleShare` of the time (a thread idle all along waits one poll). A step then starts
 * once the requests that waited are answered, and delays only those that arrive during it (a
 * step is some milliseconds).
 *
 * setImmediate between the steps took a step every turn of the event loop instead: on a lookup
 * thread answering at 80% of its capacity the open's steps then took half the thread for the
 * open's whole length (13-30 s for 10M voters), and requests queued for seconds (a p50 of
 * 2-10 s while the new version opened). After `maxWaitMs` of waiting for a quiet poll the step
 * runs anyway: a thread never quiet still opens the file, slowly.
 */
export function idlePause(
  arrivals: (() => number) | null,
  options: { pollMs?: number; idleShare?: number; maxWaitMs?: number } = {},
): () => Promise<void> {
  const pollMs = options.pollMs ?? 2;
  const idleShare = options.idleShare ?? 0.5;
  const maxWaitMs = options.maxWaitMs ?? 1000;
  let seen = arrivals?.() ?? 0;
  /** Whether no request came since the last look (unknown without a count: no). */
  const noneCame = () => {
    if (arrivals === null) return false;
    const now = arrivals();
    const none = now === seen;
    seen = now;
    return none;
  };
  return async () => {
    // The requests sent during the step are taken before an immediate runs.
    await new Promise((resolve) => setImmediate(resolve));
    const started = performance.now();
    while (!noneCame() && performance.now() - started < maxWaitMs) {
      const before = performance.eventLoopUtilization();
      await new Promise((resolve) => setTimeout(resolve, pollMs));
      const poll = performance.eventLoopUtilization(before);
      if (poll.idle >= idleShare * (poll.idle + poll.active)) break;
    }
    noneCame();
  };
}
