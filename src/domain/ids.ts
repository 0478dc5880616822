import { randomFillSync } from 'node:crypto';

/**
 * Public ids: a prefix, then 10 Crockford base-32 characters of milliseconds and 16 of
 * randomness (ULID layout), so ids sort by creation time. Within one millisecond a counter
 * keeps ids from one process strictly increasing.
 */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
let lastMillis = -1;
let sequence = 0;

function encodeTime(millis: number): string {
  let out = '';
  let value = millis;
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[value % 32] + out;
    value = Math.floor(value / 32);
  }
  return out;
}

/**
 * Random bytes drawn a few kilobytes at a time: a draw per id (every request gets one) cost some
 * 10 µs of each lookup's time on the api's thread.
 */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

function randomBytes16(): Buffer {
  if (poolAt + 16 > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  poolAt += 16;
  return pool.subarray(poolAt - 16, poolAt);
}

export function newId(prefix: 'job' | 'key' | 'req' | 'upl' | 'wrk', now = Date.now()): string {
  if (now === lastMillis) sequence++;
  else {
    lastMillis = now;
    sequence = 0;
  }
  const random = randomBytes16();
  let tail = ALPHABET[(sequence >> 5) & 31]! + ALPHABET[sequence & 31]!;
  for (let i = 0; i < 14; i++) tail += ALPHABET[random[i]! & 31];
  return `${prefix}_${encodeTime(now)}${tail}`;
}
