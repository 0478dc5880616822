import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { doubleMetaphone } from 'double-metaphone';
import { cleanName } from './names.ts';
import { phoneticCodes } from './phonetic.ts';

describe('phoneticCodes', () => {
  it('gives the double-metaphone primary and alternate codes of a word', () => {
    assert.deepEqual(phoneticCodes('SMITH'), ['SM0', 'XMT']);
    assert.deepEqual(phoneticCodes('SCHMIDT'), ['XMT', 'SMT']);
    assert.deepEqual(phoneticCodes('SMITH'), doubleMetaphone('SMITH'));
  });

  it('sound-alike spellings share a code', () => {
    const shares = (a: string, b: string) => {
      const [pa, aa] = phoneticCodes(a);
      const [pb, ab] = phoneticCodes(b);
      return pa === pb || pa === ab || aa === pb || aa === ab;
    };
    assert.ok(shares('SMITH', 'SMYTHE'));
    assert.ok(shares('SMITH', 'SCHMIDT'));
    assert.ok(shares('CATHERINE', 'KATHRYN'));
    assert.ok(!shares('SMITH', 'JONES'));
  });

  it('multi-word: leading particles join the next word, then only the first word counts', () => {
    assert.deepEqual(phoneticCodes('DE LA CRUZ'), phoneticCodes('DELACRUZ'));
    assert.deepEqual(phoneticCodes('DE JESUS'), phoneticCodes('DEJESUS'));
    assert.deepEqual(phoneticCodes('VAN DER BERG'), phoneticCodes('VANDERBERG'));
    assert.deepEqual(phoneticCodes('GARCIA LOPEZ'), phoneticCodes('GARCIA'));
    assert.deepEqual(phoneticCodes(cleanName('Garcia-Lopez')), phoneticCodes('GARCIA'));
    assert.deepEqual(phoneticCodes('MARY ANN'), phoneticCodes('MARY'));
    // Documented limit: dropping the particle changes the code.
    assert.notDeepEqual(phoneticCodes('DE LA CRUZ'), phoneticCodes('CRUZ'));
    // Only particles: all of them, joined.
    assert.deepEqual(phoneticCodes('DE LA'), phoneticCodes('DELA'));
  });

  it('returns the same frozen pair on a repeat (cached)', () => {
    const first = phoneticCodes('WASHINGTON');
    assert.equal(phoneticCodes('WASHINGTON'), first);
    assert.ok(Object.isFrozen(first));
  });

  it('keeps working past the cache bound', () => {
    const before = phoneticCodes('ZYGMUNT');
    for (let i = 0; i < 210_000; i++) phoneticCodes(`N${i.toString(36).toUpperCase()}`);
    assert.deepEqual(phoneticCodes('ZYGMUNT'), before);
  });

  it('empty and hostile input never throw', () => {
    assert.deepEqual(phoneticCodes(''), ['', '']);
    for (const value of [
      ' ',
      '   ',
      'x'.repeat(10_000),
      'X '.repeat(5000),
      'DE '.repeat(3000),
      '😀',
      '\u0000\u0001',
      'Иван',
      '12345',
      'smith',
      '\ud800',
    ]) {
      const [primary, alternate] = phoneticCodes(value);
      assert.equal(typeof primary, 'string');
      assert.equal(typeof alternate, 'string');
      assert.ok(primary.length <= 64 && alternate.length <= 64, 'codes of long input are bounded');
    }
  });
});
