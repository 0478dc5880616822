/**
 * A sample of the voter file's phone numbers and e-mail addresses with the names of the voters
 * holding them: what the file itself says of how often a number is held under another first and
 * last name (a recycled number, a shared line or inbox). It sets u of a phone or e-mail agreement
 * (random-pair-u.ts, chance-agreement.ts), which voter pairs cannot tell: two random voters almost
 * never share a number.
 *
 * The sample is taken by the number's key hash (one in SAMPLE_EVERY), so every holder of a sampled
 * number is in it, whatever segment or shard holds them: the same entries for a file imported
 * whole or as shards, whose counts add up. Four words per entry: the number's key hash and its
 * check hash (together, the number), and the holder's first and last name as value keys.
 */

/** One number in this many is sampled (about 1.5% of the file's numbers: 12 MB per 50M voters). */
const SAMPLE_EVERY = 64;

export const CONTACT_SAMPLE_WORDS = 4;

export interface ContactSample {
  phone: Uint32Array;
  email: Uint32Array;
}

/** Whether a number whose key hash is `hash` is in the sample. */
export const isSampledContact = (hash: number): boolean => hash % SAMPLE_EVERY === 0;

/** Collects a segment's sampled entries. */
export class ContactSampleCollector {
  private readonly phone: number[] = [];
  private readonly email: number[] = [];

  /** A holder of a number (its key and check hashes) under these names' value keys; unsampled ones are let go. */
  add(kind: 'phone' | 'email', hash: number, check: number, first: number, last: number): void {
    if (!isSampledContact(hash)) return;
    (kind === 'phone' ? this.phone : this.email).push(hash, check, first, last);
  }

  finish(): ContactSample {
    return { phone: Uint32Array.from(this.phone), email: Uint32Array.from(this.email) };
  }
}

/**
 * Samples of several segments or shards as one, its entries in order (number, then names): the
 * same bytes however the voters were split among them.
 */
export function joinContactSamples(samples: readonly ContactSample[]): ContactSample {
  const join = (pick: (s: ContactSample) => Uint32Array) => {
    const all = new Uint32Array(samples.reduce((sum, s) => sum + pick(s).length, 0));
    let at = 0;
    for (const sample of samples) {
      all.set(pick(sample), at);
      at += pick(sample).length;
    }
    return sortedEntries(all);
  };
  return { phone: join((s) => s.phone), email: join((s) => s.email) };
}

/** Entries sorted by their words, first to last. */
function sortedEntries(entries: Uint32Array): Uint32Array {
  const w = CONTACT_SAMPLE_WORDS;
  const order = Array.from({ length: entries.length / w }, (_, i) => i);
  order.sort((a, b) => {
    for (let k = 0; k < w; k++) {
      const d = entries[a * w + k]! - entries[b * w + k]!;
      if (d !== 0) return d;
    }
    return 0;
  });
  const out = new Uint32Array(entries.length);
  order.forEach((from, to) => {
    out.set(entries.subarray(from * w, from * w + w), to * w);
  });
  return out;
}

/**
 * Of the sampled holders that have both names: how many, and how many of them share their number
 * with another holder under another first and last name (a stranger, by every name). Each holder
 * counts once however many strangers share its number, so a number a thousand voters hold (an
 * office's line) weighs as a thousand holders with a stranger, not as a million pairs. Linear in
 * each number's holders; integers, the same whatever the order of the entries.
 */
export function strangersPerHolder(entries: Uint32Array): { holders: number; strangers: number } {
  const n = entries.length / CONTACT_SAMPLE_WORDS;
  const word = (i: number, w: number) => entries[i * CONTACT_SAMPLE_WORDS + w]!;
  const named = (i: number) => word(i, 2) !== 0 && word(i, 3) !== 0;
  const order = Array.from({ length: n }, (_, i) => i).filter(named);
  order.sort((a, b) => word(a, 0) - word(b, 0) || word(a, 1) - word(b, 1));
  let holders = 0;
  let strangers = 0;
  for (let start = 0; start < order.length; ) {
    const number = order[start]!;
    let end = start + 1;
    while (
      end < order.length &&
      word(order[end]!, 0) === word(number, 0) &&
      word(order[end]!, 1) === word(number, 1)
    )
      end++;
    // Holders of this number by first name, by last name, by both: a holder's strangers are the
    // others less those sharing its first name or its last name.
    const byFirst = new Map<number, number>();
    const byLast = new Map<number, number>();
    const byBoth = new Map<string, number>();
    for (let i = start; i < end; i++) {
      const h = order[i]!;
      byFirst.set(word(h, 2), (byFirst.get(word(h, 2)) ?? 0) + 1);
      byLast.set(word(h, 3), (byLast.get(word(h, 3)) ?? 0) + 1);
      const both = `${word(h, 2)} ${word(h, 3)}`;
      byBoth.set(both, (byBoth.get(both) ?? 0) + 1);
    }
    const k = end - start;
    for (let i = start; i < end; i++) {
      const h = order[i]!;
      const same =
        byFirst.get(word(h, 2))! + byLast.get(word(h, 3))! - byBoth.get(`${word(h, 2)} ${word(h, 3)}`)!;
      holders++;
      if (k - same > 0) strangers++;
    }
    start = end;
  }
  return { holders, strangers };
}
