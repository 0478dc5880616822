import { doubleMetaphone } from 'double-metaphone';
import { isNameParticle } from './names.ts';

/** The coded word is cut to this: codes of longer strings add nothing as a blocking key. */
const MAX_CODED_CHARS = 24;

/**
 * Which word of a multi-word name is coded (the code is a blocking key, so it must agree
 * across the spellings a voter file and a contact list use for one surname):
 * - leading particles are joined to the word after them: 'DE LA CRUZ' codes as 'DELACRUZ', so it
 *   meets the one-word spelling 'DELACRUZ' (and 'DE JESUS' meets 'DEJESUS', 'VAN DYKE' 'VANDYKE');
 *   spacing variants of particles are the commonest surname difference between sources.
 * - after that, only the first word counts: 'GARCIA LOPEZ' codes as 'GARCIA', so a Hispanic
 *   two-surname name meets the paternal surname alone (and 'GARCIA-LOPEZ', cleaned the same way).
 * A list that drops the particle ('CRUZ' for 'DE LA CRUZ') misses this key; the other blocking
 * keys (date of birth, phone, address) still reach it.
 */
function codedWord(name: string): string {
  const length = name.length;
  let key = '';
  let from = 0;
  for (let i = 0; i <= length; i++) {
    if (i < length && name.charCodeAt(i) !== 32) continue;
    if (i > from) {
      const word = name.slice(from, i);
      key += word;
      if (!isNameParticle(word) || key.length >= MAX_CODED_CHARS) return key;
    }
    from = i + 1;
  }
  return key;
}

/** Names longer than this are not cached (hostile input must not fill the cache with junk). */
const MAX_CACHED_CHARS = 64;
const CACHE_MAX = 200_000;
const cache = new Map<string, readonly [string, string]>();
const EMPTY: readonly [string, string] = Object.freeze(['', ''] as const);

/**
 * A copy of a name that holds nothing of the text it was cut from. V8 keeps a substring as a
 * slice of its parent string: a name read from a 1 MB chunk of the records file, kept as a key
 * here, kept that whole chunk alive. An import's index thread, serving one shard's build after
 * another, held 800 MB of such chunks after twelve shards of 170,000 voters (measured: its
 * external memory, after a full collection); with copies, under 260 MB.
 */
const ownCopy = (name: string): string => name.split('').join('');

/**
 * Primary and alternate Double Metaphone codes of a cleaned name (one word or several, see
 * codedWord). Cached in a Map of at most 200k names, cleared when full: names repeat heavily
 * (a voter file of millions has some 100k distinct surnames), and clearing is simpler and cheaper
 * than LRU bookkeeping on every hit. The returned pair is frozen and shared between callers.
 */
export function phoneticCodes(name: string): readonly [string, string] {
  if (name === '') return EMPTY;
  const hit = cache.get(name);
  if (hit !== undefined) return hit;
  let word = name.indexOf(' ') < 0 ? name : codedWord(name);
  if (word.length > MAX_CODED_CHARS) word = word.slice(0, MAX_CODED_CHARS);
  const [primary, alternate] = doubleMetaphone(word);
  const codes: readonly [string, string] =
    primary === '' && alternate === '' ? EMPTY : Object.freeze([primary, alternate] as const);
  if (name.length <= MAX_CACHED_CHARS) {
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(ownCopy(name), codes);
  }
  return codes;
}
