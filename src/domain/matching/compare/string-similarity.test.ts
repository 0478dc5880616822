import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Sfc32 } from '../../../lab/synthetic/random.ts';
import { boundedEditDistance, jaroWinkler } from './string-similarity.ts';

const close = (actual: number, expected: number, message?: string) =>
  assert.ok(Math.abs(actual - expected) < 1e-4, `${message ?? ''} ${actual} ≉ ${expected}`);

/** Textbook O(n·m) OSA distance, no tricks: the reference the bounded version must agree with. */
function referenceOsa(a: string, b: string): number {
  const d: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    d.push([]);
    for (let j = 0; j <= b.length; j++) {
      if (i === 0 || j === 0) {
        d[i]![j] = i + j;
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/** Textbook Jaro-Winkler with plain arrays: the reference for both the bitmask and buffer paths. */
function referenceJaroWinkler(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length === 0 || b.length === 0) return 0;
  const window = Math.max(0, Math.floor(Math.max(a.length, b.length) / 2) - 1);
  const ma: boolean[] = new Array(a.length).fill(false);
  const mb: boolean[] = new Array(b.length).fill(false);
  let m = 0;
  for (let i = 0; i < a.length; i++) {
    for (let j = Math.max(0, i - window); j < Math.min(b.length, i + window + 1); j++) {
      if (!mb[j] && a[i] === b[j]) {
        ma[i] = mb[j] = true;
        m++;
        break;
      }
    }
  }
  if (m === 0) return 0;
  const sa = [...a].filter((_, i) => ma[i]);
  const sb = [...b].filter((_, j) => mb[j]);
  const t = sa.filter((c, i) => c !== sb[i]).length / 2;
  const jaro = (m / a.length + m / b.length + (m - Math.floor(t)) / m) / 3;
  if (jaro <= 0.7) return jaro;
  let l = 0;
  while (l < 4 && l < a.length && l < b.length && a[l] === b[l]) l++;
  return jaro + l * 0.1 * (1 - jaro);
}

/** Deterministic pseudo-random strings over a small alphabet (so they share characters). */
function* randomPairs(count: number, maxLength = 12): Generator<[string, string]> {
  let seed = 12345;
  const next = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed;
  };
  const word = () => {
    let s = '';
    const length = next() % maxLength;
    for (let i = 0; i < length; i++) s += 'ABCDE'[next() % 5];
    return s;
  };
  for (let i = 0; i < count; i++) {
    const a = word();
    // Half the time b is a light mutation of a, so small distances are well covered.
    if (next() % 2 === 0) yield [a, word()];
    else {
      const chars = [...a];
      const p = next() % (chars.length + 1);
      const op = next() % 3;
      if (op === 0) chars.splice(p, 0, 'E');
      else if (op === 1) chars.splice(p, 1);
      else if (p + 1 < chars.length) [chars[p], chars[p + 1]] = [chars[p + 1]!, chars[p]!];
      yield [a, chars.join('')];
    }
  }
}

describe('jaroWinkler', () => {
  it('matches the textbook values', () => {
    close(jaroWinkler('MARTHA', 'MARHTA'), 0.9611);
    close(jaroWinkler('DWAYNE', 'DUANE'), 0.84);
    close(jaroWinkler('DIXON', 'DICKSONX'), 0.8133);
    close(jaroWinkler('JELLYFISH', 'SMELLYFISH'), 0.8963);
    close(jaroWinkler('CRATE', 'TRACE'), 0.7333);
  });

  it('is symmetric and bounded', () => {
    for (const [a, b] of randomPairs(2000)) {
      const ab = jaroWinkler(a, b);
      close(ab, jaroWinkler(b, a), `${a}/${b}`);
      assert.ok(ab >= 0 && ab <= 1, `${a}/${b}`);
    }
  });

  it('agrees with a textbook implementation, short (bitmask) and long (buffer) strings alike', () => {
    for (const maxLength of [12, 40, 90]) {
      for (const [a, b] of randomPairs(2000, maxLength))
        close(jaroWinkler(a, b), referenceJaroWinkler(a, b), `${a}/${b}`);
    }
  });

  it('edge cases: equal, empty, disjoint, one char', () => {
    assert.equal(jaroWinkler('SMITH', 'SMITH'), 1);
    assert.equal(jaroWinkler('', ''), 1);
    assert.equal(jaroWinkler('', 'A'), 0);
    assert.equal(jaroWinkler('A', ''), 0);
    assert.equal(jaroWinkler('ABC', 'XYZ'), 0);
    assert.equal(jaroWinkler('A', 'B'), 0);
    assert.equal(jaroWinkler('AB', 'BA'), 0); // window 0: no matches
  });

  it('no Winkler boost at or below Jaro 0.7', () => {
    // Prefix 'AB' shared, but Jaro is low: the value stays plain Jaro.
    const value = jaroWinkler('ABXXXXXXXX', 'ABYYYYYYYY');
    close(value, (0.2 + 0.2 + 1) / 3);
  });

  it('is correct for strings longer than the scratch buffers', () => {
    const a = `${'A'.repeat(100)}MARTHA`;
    const b = `${'A'.repeat(100)}MARHTA`;
    const value = jaroWinkler(a, b);
    assert.ok(value > 0.99 && value < 1);
    close(
      jaroWinkler(`${'X'.repeat(70)}Y`, `${'X'.repeat(70)}Z`),
      jaroWinkler(`${'X'.repeat(70)}Z`, `${'X'.repeat(70)}Y`),
    );
    // Scratch is reset between calls: a long call does not disturb a short one.
    close(jaroWinkler('MARTHA', 'MARHTA'), 0.9611);
  });

  it('never throws on hostile input', () => {
    const long = 'x'.repeat(10_000);
    assert.equal(jaroWinkler(long, long), 1);
    assert.ok(jaroWinkler(long, `${long}y`) > 0.99);
    for (const [a, b] of [
      ['😀', '😃'],
      ['\u0000', '\u0000\u0001'],
      ['JOSÉ', 'JOSE'],
      ['Иван', 'IVAN'],
    ] as const) {
      const value = jaroWinkler(a, b);
      assert.ok(value >= 0 && value <= 1);
    }
  });
});

describe('boundedEditDistance', () => {
  it('counts insertions, deletions, substitutions and transpositions as 1', () => {
    assert.equal(boundedEditDistance('SMITH', 'SMITH', 2), 0);
    assert.equal(boundedEditDistance('SMITH', 'SMYTH', 2), 1);
    assert.equal(boundedEditDistance('SMITH', 'SMITHE', 2), 1);
    assert.equal(boundedEditDistance('SMITH', 'SMIH', 2), 1);
    assert.equal(boundedEditDistance('MARTHA', 'MARHTA', 2), 1);
    assert.equal(boundedEditDistance('AB', 'BA', 2), 1);
    assert.equal(boundedEditDistance('KITTEN', 'SITTING', 5), 3);
    assert.equal(boundedEditDistance('', 'ABC', 5), 3);
    assert.equal(boundedEditDistance('ABC', '', 5), 3);
  });

  it('is OSA, not full Damerau: CA → ABC is 3', () => {
    assert.equal(boundedEditDistance('CA', 'ABC', 5), 3);
  });

  it('caps at max + 1', () => {
    assert.equal(boundedEditDistance('KITTEN', 'SITTING', 2), 3);
    assert.equal(boundedEditDistance('KITTEN', 'SITTING', 1), 2);
    assert.equal(boundedEditDistance('ABCDEFGH', 'ZYXWVUTS', 1), 2);
    assert.equal(boundedEditDistance('A', 'ABCDEFGHIJ', 2), 3);
    assert.equal(boundedEditDistance('SMITH', 'SMYTH', 0), 1);
    assert.equal(boundedEditDistance('SMITH', 'SMITH', 0), 0);
    // Negative / NaN max behave as 0.
    assert.equal(boundedEditDistance('SMITH', 'SMYTH', -1), 1);
    assert.equal(boundedEditDistance('SMITH', 'SMYTH', Number.NaN), 1);
  });

  it('agrees with a textbook OSA on random pairs, for every bound', () => {
    for (const [a, b] of randomPairs(3000)) {
      const expected = referenceOsa(a, b);
      for (const max of [0, 1, 2, 3, 5, 20]) {
        assert.equal(boundedEditDistance(a, b, max), Math.min(expected, max + 1), `${a}/${b}/${max}`);
      }
    }
  });

  it('is correct for strings longer than the scratch rows, and never throws', () => {
    const a = `${'AB'.repeat(50)}XY`;
    const b = `${'AB'.repeat(50)}YX`;
    assert.equal(boundedEditDistance(a, b, 3), 1);
    assert.equal(boundedEditDistance(`Q${'x'.repeat(100)}`, `${'x'.repeat(100)}Q`, 5), 2);
    assert.equal(boundedEditDistance(`Q${'x'.repeat(100)}R`, `Z${'x'.repeat(100)}Q`, 200), 2);
    const long = 'x'.repeat(10_000);
    assert.equal(boundedEditDistance(long, `${long}y`, 2), 1);
    assert.equal(boundedEditDistance(long, 'y'.repeat(10_000), 2), 3);
    assert.equal(boundedEditDistance('😀', '😃', 3), 1);
    assert.equal(boundedEditDistance('KITTEN', 'SITTING', Number.POSITIVE_INFINITY), 3);
    assert.equal(boundedEditDistance('ABC', 'XYZ', 1e12), 3);
  });
});

describe('jaroWinkler with a floor', () => {
  it('is the exact similarity whenever that reaches the floor, else below it', () => {
    const rng = new Sfc32(11, 12, 13);
    const random = (n: number) => rng.int(n);
    const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ -0123456789';
    const word = () => Array.from({ length: 1 + random(12) }, () => letters[random(letters.length)]).join('');
    const names = [
      'SMITH',
      'SMYTH',
      'JOHNSON',
      'JONSON',
      'MARTHA',
      'MARHTA',
      'DIXON',
      'DICKSONX',
      'GARCIA LOPEZ',
    ];
    let bounded = 0;
    for (let k = 0; k < 20_000; k++) {
      const a = k < 81 ? names[k % 9]! : word();
      const b = k < 81 ? names[Math.floor(k / 9)]! : random(3) === 0 ? a.slice(1) + a[0] : word();
      const exact = jaroWinkler(a, b);
      for (const floor of [0.8, 0.88, 0.94]) {
        const floored = jaroWinkler(a, b, floor);
        if (exact >= floor) assert.equal(floored, exact, `${a} / ${b} at ${floor}`);
        else {
          assert.ok(floored < floor, `${a} / ${b} at ${floor}`);
          if (floored !== exact) bounded++;
        }
      }
    }
    assert.ok(bounded > 10_000, `the bound decides some pairs (${bounded})`);
  });
});
