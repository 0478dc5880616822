import { boundedEditDistance } from '../compare/string-similarity.ts';

/**
 * The mailbox providers most people's addresses are at: a domain one keystroke from one of them
 * (gmial.com, yahoo.con, hotmailcom) is that provider mistyped, as a person typing their own
 * address into a form does, and the voter file has the address as it is.
 */
const PROVIDERS = [
  'gmail.com',
  'yahoo.com',
  'hotmail.com',
  'outlook.com',
  'aol.com',
  'icloud.com',
  'comcast.net',
] as const;

/** Real domains one keystroke from a provider, never corrected: Yahoo's ymail.com, mail.com, email.com. */
const REAL_NEIGHBOURS: ReadonlySet<string> = new Set(['ymail.com', 'mail.com', 'email.com']);

/**
 * The provider a lower-case domain is a one-keystroke typo of (a letter substituted, dropped,
 * doubled or two neighbours swapped, the dot included), or null: a provider itself, a real
 * neighbour, a domain near two providers or near none. A provider whose name has three letters
 * (aol.com) is corrected only in its TLD (aol.con), since many real domains are a letter from it.
 */
export function providerOfTypo(domain: string): string | null {
  if (REAL_NEIGHBOURS.has(domain)) return null;
  let found: string | null = null;
  for (const provider of PROVIDERS) {
    if (domain === provider) return null;
    if (Math.abs(domain.length - provider.length) > 1) continue;
    if (boundedEditDistance(domain, provider, 1) > 1) continue;
    const label = provider.slice(0, provider.indexOf('.'));
    if (label.length <= 3 && !domain.startsWith(`${label}.`)) continue;
    if (found !== null) return null;
    found = provider;
  }
  return found;
}
