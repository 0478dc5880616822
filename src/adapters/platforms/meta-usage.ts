/**
 * The Graph API's rate-limit headers. Each reports percentages of a quota used (100 = throttled)
 * and, when throttled, how long until access returns:
 * - `x-app-usage`: `{"call_count":28,"total_time":25,"total_cputime":25}`
 * - `x-ad-account-usage`: `{"acc_id_util_pct":9.67,"reset_time_duration":0}` (seconds)
 * - `x-business-use-case-usage`: `{"<business id>":[{"type":"custom_audience","call_count":100,
 *   "total_cputime":25,"total_time":25,"estimated_time_to_regain_access":19}]}` (minutes)
 * Headers that are absent or malformed count as no information, never as an error.
 */
export interface GraphUsage {
  /** Highest percentage any header reports, 0 when none does. */
  maxPct: number;
  /** Longest wait any header announces, in ms (0 when none does). */
  regainMs: number;
}

type HeaderSource = { get(name: string): string | null };

export function parseGraphUsage(headers: HeaderSource): GraphUsage {
  let maxPct = 0;
  let regainMs = 0;
  const percentages = (record: unknown, keys: readonly string[]) => {
    if (record === null || typeof record !== 'object') return;
    for (const key of keys) {
      const value = (record as Record<string, unknown>)[key];
      if (typeof value === 'number' && Number.isFinite(value)) maxPct = Math.max(maxPct, value);
    }
  };
  const app = parseJson(headers.get('x-app-usage'));
  percentages(app, ['call_count', 'total_time', 'total_cputime']);
  const account = parseJson(headers.get('x-ad-account-usage'));
  percentages(account, ['acc_id_util_pct']);
  const reset = (account as { reset_time_duration?: unknown } | null)?.reset_time_duration;
  if (typeof reset === 'number' && reset > 0) regainMs = Math.max(regainMs, reset * 1000);
  const business = parseJson(headers.get('x-business-use-case-usage'));
  if (business !== null && typeof business === 'object') {
    for (const entries of Object.values(business as Record<string, unknown>)) {
      if (!Array.isArray(entries)) continue;
      for (const entry of entries) {
        percentages(entry, ['call_count', 'total_time', 'total_cputime']);
        const minutes = (entry as { estimated_time_to_regain_access?: unknown } | null)
          ?.estimated_time_to_regain_access;
        if (typeof minutes === 'number' && minutes > 0) regainMs = Math.max(regainMs, minutes * 60_000);
      }
    }
  }
  return { maxPct, regainMs };
}

/** `Retry-After` in ms: delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/**
 * Delay before the next call given the last reported usage: none below `startPct`, then growing
 * with the square of how far usage is into the band up to `maxDelayMs` at 100 %. Slowing down
 * early keeps a long upload from hitting the limit, which costs far more (a throttle can last an
 * hour on the business use case quota).
 */
export function pacingDelayMs(usagePct: number, options: { startPct: number; maxDelayMs: number }): number {
  if (usagePct <= options.startPct) return 0;
  const share = Math.min(1, (usagePct - options.startPct) / (100 - options.startPct));
  return Math.round(options.maxDelayMs * share * share);
}

function parseJson(value: string | null): unknown {
  if (value === null || value === '') return null;
  try {
    return JSON.parse(value);
  } catch {
    return null;
  }
}
