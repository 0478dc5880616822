import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JobProgress } from '../domain/client-jobs/job-types.ts';
import { ChunkRowsRecorder, ProgressRecorder } from './job-progress.ts';

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

test('ChunkRowsRecorder: adds the rows since the last add, at most once per interval, and the rest when done', async (t) => {
  t.mock.timers.enable({ apis: ['Date'] });
  const added: number[] = [];
  let fail = false;
  const recorder = new ChunkRowsRecorder(
    {
      addChunkRows: async (_id, rows) => {
        if (fail) throw new Error('database away');
        added.push(rows);
        return true;
      },
    },
    'job_1',
    { intervalMs: 1_000 },
  );
  recorder.rows(100);
  await settled();
  recorder.rows(250); // within the interval: held back
  await settled();
  assert.deepEqual(added, [100]);
  t.mock.timers.tick(1_000);
  fail = true;
  recorder.rows(300); // fails: added again with the next
  await settled();
  fail = false;
  t.mock.timers.tick(1_000);
  recorder.rows(420);
  await settled();
  assert.deepEqual(added, [100, 320]);
  recorder.rows(500);
  await recorder.finish();
  assert.deepEqual(added, [100, 320, 80], 'every row counted once');
  await recorder.finish();
  assert.equal(added.length, 3, 'nothing left to add');
});
