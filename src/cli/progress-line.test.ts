import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { ProgressLine } from './progress-line.ts';

function stream(isTTY: boolean) {
  const written: string[] = [];
  return { isTTY, written, write: (text: string) => written.push(text) };
}

describe('ProgressLine', () => {
  it('writes a line held back by its pace once the pace allows, with nothing after it', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 10_000 });
    const out = stream(false);
    const line = new ProgressLine(true, out);
    line.show('upload done', true);
    // A poll's answer 200 ms later: held back (one line a second off a terminal)...
    t.mock.timers.tick(200);
    line.show('job processing 10 rows matched');
    assert.deepEqual(out.written, ['upload done\n']);
    // ... and written when the second is up, though no other line comes.
    t.mock.timers.tick(799);
    assert.equal(out.written.length, 1);
    t.mock.timers.tick(1);
    assert.deepEqual(out.written, ['upload done\n', 'job processing 10 rows matched\n']);
  });

  it('writes only the newest of the lines held back, once', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 10_000 });
    const out = stream(false);
    const line = new ProgressLine(true, out);
    line.show('a');
    line.show('b');
    line.show('c');
    t.mock.timers.tick(5_000);
    assert.deepEqual(out.written, ['a\n', 'c\n']);
    line.done();
    assert.deepEqual(out.written, ['a\n', 'c\n']);
  });

  it('redraws a terminal line at most every 100 ms and ends it with done', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 10_000 });
    const out = stream(true);
    const line = new ProgressLine(undefined, out);
    line.show('1');
    line.show('2');
    t.mock.timers.tick(100);
    line.show('3');
    line.done();
    assert.deepEqual(out.written, ['\r\x1b[2K1', '\r\x1b[2K2', '\r\x1b[2K3\n']);
  });

  it('writes nothing off a terminal unless asked to', () => {
    const out = stream(false);
    const line = new ProgressLine(undefined, out);
    line.show('x', true);
    line.done();
    assert.deepEqual(out.written, []);
    mock.reset();
  });
});
