import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { touchPages } from './touch-pages.ts';

describe('touchPages', () => {
  it('reads a byte of every page of every part, pausing between steps', async () => {
    // A 1 at the start of each page (and nowhere else): the sum counts the pages read.
    const part = (pages: number, tail = 0) => {
      const bytes = new Uint8Array(pages * 4096 + tail);
      for (let at = 0; at < bytes.length; at += 4096) bytes[at] = 1;
      return bytes;
    };
    const parts = [part(10), part(3, 100), new Uint8Array(0), part(1)];
    let pauses = 0;
    const sum = await touchPages(
      parts,
      async () => {
        pauses++;
      },
      4 * 4096,
    );
    assert.equal(sum, 10 + 4 + 1, 'every page, the last partial one too');
    // Steps of 4 pages: 3 for the first part, 1 for the second, none for the empty one, 1 for the last.
    assert.equal(pauses, 3 + 1 + 0 + 1);
  });
});
