import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  addChance,
  CHANCE_AGREEMENT,
  countStranger,
  estimateChance,
  fileAgreement,
  type PersonChance,
  personChance,
  type StrangerTally,
  withListChance,
} from './chance-agreement.ts';
import { F, FIELD_COUNT, L, MAX_LEVELS } from './comparison-levels.ts';
import { at } from './fellegi-sunter.ts';

function levelsOf(set: Partial<Record<keyof typeof F, number>>): Uint8Array {
  const levels = new Uint8Array(FIELD_COUNT);
  for (const [field, level] of Object.entries(set)) levels[F[field as keyof typeof F]] = level;
  return levels;
}

const PRIOR = { phone: 0.5, email: 0.25 };

describe('chance agreement of phones and e-mails (learnt from the list)', () => {
  it('counts a voter holding the row’s phone or e-mail as a stranger only when both names differ', () => {
    const tally: StrangerTally = { phone: 0, email: 0 };
    const differ = { first: L.first.differ, last: L.last.differ };
    countStranger(levelsOf({ ...differ, phone: L.binary.exact }), tally);
    countStranger(levelsOf({ ...differ, phone: L.binary.exact, email: L.binary.exact }), tally);
    // The same surname (a relative, weighed by household.ts), a nickname, a differing number.
    countStranger(levelsOf({ first: L.first.differ, last: L.last.exact, phone: L.binary.exact }), tally);
    countStranger(levelsOf({ first: L.first.nickname, last: L.last.differ, email: L.binary.exact }), tally);
    countStranger(levelsOf({ ...differ, phone: L.binary.differ }), tally);
    // A row without a surname compares none: it cannot tell.
    countStranger(levelsOf({ first: L.first.differ, phone: L.binary.exact }), tally);
    assert.deepEqual(tally, { phone: 2, email: 1 });
  });

  it('estimates the share of persons whose number a stranger holds, the prior worth 50 more persons', () => {
    const persons: (PersonChance | undefined)[] = [];
    // 150 persons give a phone and both names: 3 phones held by strangers (one of them by 40, an
    // office's line: counted once). 10 give an e-mail too.
    for (let i = 0; i < 150; i++) {
      const tally = { phone: i === 0 ? 40 : i < 3 ? 1 : 0, email: 0 };
      persons.push(personChance(PRIOR, { phone: true, email: i < 10 }, tally));
    }
    // Persons that cannot tell (no names, no phone) and evidence of earlier versions count for nothing.
    persons.push(personChance(PRIOR, { phone: false, email: false }, { phone: 7, email: 7 }), undefined);
    const fit = estimateChance(persons) ?? assert.fail('150 persons tell');
    assert.equal(fit.chance.phone, (3 + 50 * 0.5) / 200);
    assert.equal(fit.chance.email, (0 + 50 * 0.25) / 60);
    const phoneBits = Math.log2(fit.chance.phone! / 0.5);
    const emailBits = Math.log2(fit.chance.email! / 0.25);
    assert.equal(fit.shiftBits(levelsOf({ phone: L.binary.exact })), phoneBits);
    assert.equal(
      fit.shiftBits(levelsOf({ phone: L.binary.exact, email: L.binary.exact })),
      phoneBits + emailBits,
    );
    assert.equal(fit.shiftBits(levelsOf({ phone: L.binary.differ, first: L.first.exact })), 0);
  });

  it('tells nothing without persons that tell, and keeps an untold kind at the file’s u', () => {
    assert.equal(estimateChance([]), null);
    assert.equal(
      estimateChance([personChance(PRIOR, { phone: false, email: false }, { phone: 0, email: 0 })]),
      null,
    );
    const phoneOnly = estimateChance([
      personChance(PRIOR, { phone: true, email: false }, { phone: 0, email: 0 }),
    ]);
    assert.equal(phoneOnly?.chance.email, null);
    assert.equal(phoneOnly?.shiftBits(levelsOf({ email: L.binary.exact })), 0);
  });

  it('adds a person’s strangers over the shards its row was matched in', () => {
    const a = personChance(PRIOR, { phone: true, email: false }, { phone: 1, email: 0 });
    const b = personChance(PRIOR, { phone: true, email: false }, { phone: 2, email: 0 });
    assert.deepEqual(addChance(a, b), { phone: { strangers: 3, prior: 0.5 }, email: null });
  });

  it('sets u of the list’s kinds to strangers per person over the file’s size, on a copy', () => {
    const u = new Float64Array(FIELD_COUNT * MAX_LEVELS).fill(0.25);
    const own = withListChance(u, { phone: 0.02, email: null }, 1_000_000);
    assert.notEqual(own, u);
    assert.equal(u[at(F.phone, L.binary.exact)], 0.25, 'the file’s u is left as it was');
    assert.equal(own[at(F.phone, L.binary.exact)], 0.02 / 1_000_000);
    assert.equal(own[at(F.phone, L.binary.differ)], 1 - 0.02 / 1_000_000);
    assert.equal(own[at(F.email, L.binary.exact)], 0.25, 'an e-mail the list did not tell keeps the file’s');
    assert.equal(withListChance(u, undefined, 10), u);
  });

  it('takes u of a file from its own strangers per holder, the constant a prior worth 50 holders', () => {
    const n = 2_000_000;
    // 10,000 sampled holders with both names, 300 strangers among their numbers' other holders.
    const u = fileAgreement({ holders: 10_000, strangers: 300 }, n);
    assert.equal(u, (300 + 50 * CHANCE_AGREEMENT * n) / 10_050 / n);
    assert.ok(Math.abs(u * n - 0.03) < 0.001, 'about 0.03 strangers per holder');
    // No stranger among a few holders: the prior keeps it from being certain.
    assert.ok(fileAgreement({ holders: 10, strangers: 0 }, n) > 0);
    // A file stored before its sample: the constant, as before.
    assert.equal(fileAgreement(undefined, n), CHANCE_AGREEMENT);
  });
});
