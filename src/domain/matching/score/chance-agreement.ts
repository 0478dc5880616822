import { F, L, MAX_LEVELS } from './comparison-levels.ts';

/**
 * How often a phone number or an e-mail address agrees between a list's person and a voter who is
 * someone else: u of their exact agreement, learnt from evidence, the file's and each list's.
 *
 * Random pairs of voters cannot tell it (two voters almost never share a number), so u was once a
 * constant per pair. But the number of voters that hold a stranger's number by chance (a recycled
 * number, a shared line or inbox, a spouse under another name) is what sets how far a row's phone
 * alone can be trusted, and a constant per pair made it grow with the file: a lone phone scored 97
 * on a 5M-voter file and 68 on a 50M one while it was right 96-98% of the time on both.
 *
 * - The file's own (fileAgreement): the share of a sample of its numbers' holders (contact-
 *   sample.ts) whose number another holder has under another first and last name.
 * - Each list's (estimateChance): the share of its sample persons that give a phone (an e-mail)
 *   and both names whose number a voter holds under another first and last name than the row's.
 *   The file's figure is its prior, worth PRIOR_PERSONS persons, so a list without such persons
 *   (only phones, or no phones) and the single-person lookups keep the file's.
 *
 * Either way `c` is how often a voter file of this size holds a stranger's number (each counted
 * once however many strangers share it, so an office's line held by a thousand voters does not
 * outweigh the file), and u = c ÷ N. The old constant per pair (CHANCE_AGREEMENT) is the file's
 * prior.
 */

/** The prior u of a phone or e-mail agreement between different people, per pair. */
export const CHANCE_AGREEMENT = 1e-8;

/** Pseudo-persons the prior's count weighs as (the fit's other priors weigh 50 rows alike). */
const PRIOR_PERSONS = 50;

/**
 * u of a phone (e-mail) agreement in a voter file of `size` voters: the share of its numbers'
 * holders that share theirs with a stranger, ÷ N, from the file's own sample of numbers
 * (contact-sample.ts: the holders that have both names, and those of them whose number another
 * holder has under another first and last name), with
 * CHANCE_AGREEMENT × N strangers as a prior worth PRIOR_PERSONS holders. A file stored before its
 * sample was keeps CHANCE_AGREEMENT. A voter holding a recycled or shared number under others'
 * names stands for how often a stranger's number is a voter's; the list's fit (estimateChance)
 * takes it as its prior.
 */
export function fileAgreement(
  sample: { holders: number; strangers: number } | undefined,
  size: number,
): number {
  if (sample === undefined || size < 1) return CHANCE_AGREEMENT;
  return withPrior(sample.strangers, sample.holders, CHANCE_AGREEMENT * size) / size;
}

/** The share `strangers` of `told`, with `prior` as the share of PRIOR_PERSONS more. */
const withPrior = (strangers: number, told: number, prior: number): number =>
  (strangers + PRIOR_PERSONS * prior) / (told + PRIOR_PERSONS);

/** Strangers found holding a person's phone (e-mail), counted while its candidates are scored. */
export interface StrangerTally {
  phone: number;
  email: number;
}

/** A candidate's levels counted into the tally when it holds the row's phone (e-mail) under other names. */
export function countStranger(levels: Uint8Array, tally: StrangerTally): void {
  if (levels[F.first] !== L.first.differ || levels[F.last] !== L.last.differ) return;
  if (levels[F.phone] === L.binary.exact) tally.phone++;
  if (levels[F.email] === L.binary.exact) tally.email++;
}

/**
 * What one sample person tells of chance agreement on one kind of value: the strangers holding
 * it, and the file's own share (u × N, fileAgreement: the same in every shard, which all know the
 * whole file's u and size), the prior. Null: the person gives no such value, or not both names, so
 * it cannot tell a stranger from the voter.
 */
export type ChanceCount = { strangers: number; prior: number } | null;

export interface PersonChance {
  phone: ChanceCount;
  email: ChanceCount;
}

/**
 * The share of a list's persons whose phone (e-mail) a stranger holds (the fit's estimate); null
 * for a kind no sample person told (the file's u then). Plain data: it travels with the list's fit.
 */
export interface ListChance {
  phone: number | null;
  email: number | null;
}

/**
 * The counts of one person in one voter file (a shard): `prior`, the share the file's own u says
 * (u × N, whole-file figures in every shard), for phones and e-mails.
 */
export function personChance(
  prior: { phone: number; email: number },
  tells: { phone: boolean; email: boolean },
  tally: StrangerTally,
): PersonChance {
  return {
    phone: tells.phone ? { strangers: tally.phone, prior: prior.phone } : null,
    email: tells.email ? { strangers: tally.email, prior: prior.email } : null,
  };
}

/** One person's counts over the shards its row was matched in: the strangers of each, added. */
export function addChance(a: PersonChance, b: PersonChance): PersonChance {
  const add = (x: ChanceCount, y: ChanceCount): ChanceCount =>
    x === null || y === null ? (x ?? y) : { strangers: x.strangers + y.strangers, prior: x.prior };
  return { phone: add(a.phone, b.phone), email: add(a.email, b.email) };
}

/** A list's estimate, and what it changes in the weight of a candidate the fit weighs. */
export interface ChanceFit {
  chance: ListChance;
  /**
   * Bits to add to a candidate's "other bits" (the part of its weight m does not set, weighed with
   * the file's u): log2 of the list's share over the prior's, for each of a phone
   * and an e-mail it agrees on.
   */
  shiftBits(levels: ArrayLike<number>): number;
}

/**
 * The share of the sample's persons whose phone (e-mail) a stranger holds, with the prior's as
 * PRIOR_PERSONS more persons. Null when no person tells either.
 */
export function estimateChance(persons: readonly (PersonChance | undefined)[]): ChanceFit | null {
  const kind = (pick: (p: PersonChance) => ChanceCount): { c: number; prior: number } | null => {
    let told = 0;
    let strangers = 0;
    let prior = 0;
    for (const person of persons) {
      const count = person === undefined ? null : pick(person);
      if (count === null) continue;
      told++;
      // Once per person however many strangers hold its number, as the file's sample counts holders.
      strangers += Math.min(1, count.strangers);
      prior = count.prior;
    }
    if (told === 0 || !(prior > 0)) return null;
    return { c: withPrior(strangers, told, prior), prior };
  };
  const phone = kind((p) => p.phone);
  const email = kind((p) => p.email);
  if (phone === null && email === null) return null;
  const phoneBits = phone === null ? 0 : Math.log2(phone.c / phone.prior);
  const emailBits = email === null ? 0 : Math.log2(email.c / email.prior);
  return {
    chance: { phone: phone?.c ?? null, email: email?.c ?? null },
    shiftBits: (levels) =>
      (levels[F.phone] === L.binary.exact ? phoneBits : 0) +
      (levels[F.email] === L.binary.exact ? emailBits : 0),
  };
}

/**
 * u of phone and e-mail agreement in a file of `size` voters for a list's estimate: c ÷ N (a kind
 * the list did not tell keeps the file's u). A copy: the file's u is shared by every list.
 */
export function withListChance(u: Float64Array, chance: ListChance | undefined, size: number): Float64Array {
  if (chance === undefined) return u;
  const own = u.slice();
  const n = Math.max(1, size);
  if (chance.phone !== null) setAgreement(own, F.phone, chance.phone / n);
  if (chance.email !== null) setAgreement(own, F.email, chance.email / n);
  return own;
}

/** u of a binary field's agreement, its disagreement the rest. */
function setAgreement(u: Float64Array, field: number, share: number): void {
  // Never more than half: a number every stranger held would say nothing, never the opposite.
  const exact = Math.min(0.5, Math.max(share, Number.MIN_VALUE));
  u[field * MAX_LEVELS + L.binary.exact] = exact;
  u[field * MAX_LEVELS + L.binary.differ] = 1 - exact;
}
