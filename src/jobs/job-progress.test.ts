import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JobProgress } from '../domain/client-jobs/job-types.ts';
import { ProgressRecorder } from './job-progress.ts';

/** Lets the recorder's write (a few promise steps) finish. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

async function* chunks(...sizes: number[]): AsyncIterable<Uint8Array> {
  for (const size of sizes) yield new Uint8Array(size);
}

test('ProgressRecorder: at most one write per interval, the change within it written when it ends', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  const written: JobProgress[] = [];
  const recorder = new ProgressRecorder(
    {
      recordProgress: async (_id, progress) => {
        written.push(progress);
        return true;
      },
    },
    { id: 'job_1', uploadBytes: 1_000 },
    { intervalMs: 1_000 },
  );
  for await (const _ of recorder.countBytes(chunks(300, 200))) {
    // the sample pass reads 500 bytes
  }
  recorder.rows(10);
  await settled();
  assert.deepEqual(written, [{ rowsMatched: 10, bytesRead: 500, bytesTotal: 1_000, at: 0 }]);
  t.mock.timers.tick(300);
  recorder.rows(20);
  recorder.rows(30);
  await settled();
  assert.equal(written.length, 1, 'within the interval: held back');
  t.mock.timers.tick(700);
  await settled();
  assert.deepEqual(written.at(-1), { rowsMatched: 30, bytesRead: 500, bytesTotal: 1_000, at: 1_000 });
  // A second reading from the start never takes bytes read back.
  for await (const _ of recorder.countBytes(chunks(100))) {
    // the match pass
  }
  t.mock.timers.tick(1_000);
  recorder.rows(40);
  await settled();
  assert.deepEqual(written.at(-1), { rowsMatched: 40, bytesRead: 500, bytesTotal: 1_000, at: 2_000 });
  assert.equal(written.length, 3);
});

test('ProgressRecorder: a failed write is dropped, the next one goes out', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  let calls = 0;
  const recorder = new ProgressRecorder(
    {
      recordProgress: async () => {
        calls++;
        if (calls === 1) throw new Error('database away');
        return true;
      },
    },
    { id: 'job_1', uploadBytes: null },
  );
  recorder.rows(1);
  await new Promise((resolve) => setImmediate(resolve));
  t.mock.timers.tick(1_000);
  recorder.rows(2);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(calls, 2);
});

test('ProgressRecorder: a change while a write is in flight is written after it, not lost', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  const written: number[] = [];
  let finish: () => void = () => {};
  const recorder = new ProgressRecorder(
    {
      recordProgress: async (_id, progress) => {
        written.push(progress.rowsMatched);
        await new Promise<void>((resolve) => {
          finish = resolve;
        });
        return true;
      },
    },
    { id: 'job_1', uploadBytes: 10 },
  );
  recorder.rows(1);
  t.mock.timers.tick(1_500);
  recorder.rows(2); // the first write still runs
  finish();
  await settled();
  assert.deepEqual(written, [1, 2]);
});
