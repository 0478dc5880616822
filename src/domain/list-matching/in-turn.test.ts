import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inTurns } from './in-turn.ts';

describe('inTurns', () => {
  it('runs steps in the order asked, each after the last one finished, and a failure stays its own', async () => {
    const inTurn = inTurns();
    const log: string[] = [];
    const step = (name: string, ms: number, fail = false) =>
      inTurn(async () => {
        log.push(`${name} starts`);
        await new Promise((resolve) => setTimeout(resolve, ms));
        log.push(`${name} ends`);
        if (fail) throw new Error(name);
        return name;
      });
    const results = await Promise.allSettled([step('a', 20), step('b', 1, true), step('c', 5)]);
    assert.deepEqual(log, ['a starts', 'a ends', 'b starts', 'b ends', 'c starts', 'c ends']);
    assert.deepEqual(
      results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message)),
      ['a', 'b', 'c'],
    );
    assert.equal(results[1]!.status, 'rejected');
  });
});
