/**
 * The person and voter lookups (clients.md 25-29): each endpoint is a right of its own per key,
 * granted by the operator (`listmatch keys lookups`); a new key has none of them.
 */
export const LOOKUP_RIGHTS = [
  'registration_check',
  'data_enhance',
  'radius_search',
  'phone_search',
  'email_search',
] as const;
export type LookupRight = (typeof LOOKUP_RIGHTS)[number];

/** The path each right opens. */
export const LOOKUP_PATHS: Readonly<Record<LookupRight, string>> = {
  registration_check: '/voter/voter-registration-check',
  data_enhance: '/person/data-enhance',
  radius_search: '/person/radius-search',
  phone_search: '/person/phone-search',
  email_search: '/person/email-search',
};

/** A key's lookup rights and its own daily quota (null: the service's LOOKUP_DAILY_QUOTA). */
export interface LookupGrant {
  keyId: string;
  rights: LookupRight[];
  /** Persons this key may look up per UTC day; null: the service default. */
  dailyQuota: number | null;
  updatedAt: number;
}

/** Lookups of one key on one UTC day at one endpoint: requests and the persons they asked for. */
export interface LookupUsageRow {
  keyId: string;
  /** UTC day, YYYY-MM-DD. */
  day: string;
  right: LookupRight;
  requests: number;
  persons: number;
}

/** Parses `a,b` (or `all`, `none`) into rights; throws on an unknown name. */
export function parseLookupRights(text: string): LookupRight[] {
  const value = text.trim().toLowerCase();
  if (value === 'none' || value === '') return [];
  if (value === 'all') return [...LOOKUP_RIGHTS];
  const rights = value.split(',').map((name) => name.trim().replaceAll('-', '_'));
  for (const right of rights) {
    if (!(LOOKUP_RIGHTS as readonly string[]).includes(right))
      throw new Error(`unknown lookup right "${right}"; known: ${LOOKUP_RIGHTS.join(', ')}, all, none`);
  }
  return [...new Set(rights as LookupRight[])];
}

const DAY_MS = 86_400_000;
/** The last day utcDayOf formatted, as [start, end) in epoch ms: every lookup asks for today's. */
let dayStart = 0;
let dayEnd = 0;
let dayText = '';

/** UTC day of an epoch time, YYYY-MM-DD. */
export function utcDayOf(at: number): string {
  if (at >= dayStart && at < dayEnd) return dayText;
  dayStart = Math.floor(at / DAY_MS) * DAY_MS;
  dayEnd = dayStart + DAY_MS;
  dayText = new Date(dayStart).toISOString().slice(0, 10);
  return dayText;
}
