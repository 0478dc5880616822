import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CONTACT_SAMPLE_WORDS,
  ContactSampleCollector,
  isSampledContact,
  joinContactSamples,
  strangersPerHolder,
} from './contact-sample.ts';

/** Entries of [number, check, first, last]. */
const entries = (...rows: [number, number, number, number][]) => Uint32Array.from(rows.flat());

describe('the voter file’s sample of phones and e-mails (contact-sample.ts)', () => {
  it('counts, per holder with both names, the other holders of its number under another first and last name', () => {
    const sample = entries(
      // One number, three holders: ANN LEE and her husband BOB LEE (a surname shared), and a
      // stranger CAL ORR: each of the three shares the number with a stranger (Cal with two,
      // counted once).
      [64, 7, 1, 10],
      [64, 7, 2, 10],
      [64, 7, 3, 11],
      // The same key hash with another check hash: another number, held by one voter.
      [64, 8, 4, 12],
      // A holder without a surname tells nothing, and is no one's stranger.
      [128, 9, 5, 0],
      [128, 9, 6, 13],
      // A number a household shares under one surname: no stranger.
      [192, 3, 7, 14],
      [192, 3, 8, 14],
    );
    assert.deepEqual(strangersPerHolder(sample), { holders: 7, strangers: 3 });
    assert.deepEqual(strangersPerHolder(new Uint32Array(0)), { holders: 0, strangers: 0 });
  });

  it('counts a number a thousand voters hold once per holder, in time linear in its holders', () => {
    const office = entries(
      ...Array.from({ length: 20_000 }, (_, i): [number, number, number, number] => [64, 1, i + 1, i + 1]),
    );
    const started = performance.now();
    assert.deepEqual(strangersPerHolder(office), { holders: 20_000, strangers: 20_000 });
    assert.ok(performance.now() - started < 5000, 'not quadratic (400M pairs)');
  });

  it('samples a number by its key hash, so every holder of a sampled number is in it', () => {
    const collector = new ContactSampleCollector();
    for (let hash = 0; hash < 640; hash++) {
      collector.add('phone', hash, 1, 2, 3);
      collector.add('phone', hash, 1, 4, 5);
    }
    collector.add('email', 64 * 3, 2, 2, 3);
    const sample = collector.finish();
    const sampled = [...Array(640).keys()].filter(isSampledContact);
    assert.equal(sampled.length, 10, 'one number in 64');
    assert.equal(sample.phone.length, sampled.length * 2 * CONTACT_SAMPLE_WORDS, 'both holders of each');
    assert.deepEqual(Array.from(sample.email), [192, 2, 2, 3]);
  });

  it('joins segments’ samples into the same bytes however the voters were split', () => {
    const a = { phone: entries([128, 1, 2, 3], [64, 9, 9, 9]), email: entries([64, 1, 1, 1]) };
    const b = { phone: entries([64, 9, 1, 1]), email: new Uint32Array(0) };
    const one = joinContactSamples([a, b]);
    const other = joinContactSamples([b, a]);
    assert.deepEqual(one, other);
    assert.deepEqual(Array.from(one.phone), [64, 9, 1, 1, 64, 9, 9, 9, 128, 1, 2, 3]);
    assert.deepEqual(strangersPerHolder(one.phone), { holders: 3, strangers: 2 });
  });
});
