import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { LineBuffer } from './line-buffer.ts';

test('LineBuffer writes every line in order, in chunks, with one drain listener at a time', async () => {
  const received: string[] = [];
  let maxListeners = 0;
  const slow = new Writable({
    highWaterMark: 1024,
    write(chunk, _encoding, done) {
      received.push(String(chunk));
      setImmediate(done);
    },
  });
  const lines = new LineBuffer(slow);
  const expected: string[] = [];
  for (let i = 0; i < 50_000; i++) {
    const line = `row ${i}\n`;
    expected.push(line);
    lines.write(line);
    maxListeners = Math.max(maxListeners, slow.listenerCount('drain'));
  }
  await lines.end();
  assert.equal(received.join(''), expected.join(''));
  assert.ok(received.length < 50, `${received.length} writes for 50,000 lines`);
  assert.ok(maxListeners <= 1, `${maxListeners} drain listeners at once`);
});

test('LineBuffer.ready waits while the stream is over its high-water mark', async () => {
  const pending: (() => void)[] = [];
  const stuck = new Writable({
    highWaterMark: 1024,
    write(_chunk, _encoding, done) {
      pending.push(done);
    },
  });
  const lines = new LineBuffer(stuck);
  for (let i = 0; i < 20_000; i++) lines.write(`row ${i}\n`);
  let ready = false;
  const waiting = lines.ready().then(() => {
    ready = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(ready, false, 'not ready while the disk is stuck');
  while (!ready) {
    pending.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
  }
  await waiting;
});

test('LineBuffer: a stream error (disk full) rejects ready and end instead of going unhandled', async () => {
  const failing = new Writable({
    highWaterMark: 16,
    write(_chunk, _encoding, done) {
      setImmediate(() => done(new Error('ENOSPC: no space left on device')));
    },
  });
  const lines = new LineBuffer(failing);
  for (let i = 0; i < 20_000; i++) lines.write(`row ${i}\n`);
  await assert.rejects(lines.ready(), /ENOSPC/);
  await assert.rejects(lines.end(), /ENOSPC/);
});

test('LineBuffer keeps lines and bytes in the order given, small byte parts written together', async () => {
  const writes: Buffer[] = [];
  const out = new Writable({
    write(chunk, _encoding, done) {
      writes.push(Buffer.from(chunk));
      done();
    },
  });
  const lines = new LineBuffer(out);
  let expected = '';
  lines.write('header\n');
  expected += 'header\n';
  for (let i = 0; i < 20_000; i++) {
    const text = i % 3 === 0 ? `line ${i}\n` : `bytes ${i}\n`;
    if (i % 3 === 0) lines.write(text);
    else lines.writeBytes(Buffer.from(text));
    expected += text;
  }
  await lines.end();
  assert.equal(Buffer.concat(writes).toString(), expected);
  // 20,000 parts of about 12 bytes: a few writes of 64 KiB, not one a part.
  assert.ok(writes.length <= Math.ceil(expected.length / 65_536) + 1, `${writes.length} writes`);
});
