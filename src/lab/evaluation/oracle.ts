import { FIELDS } from '../../domain/matching/score/comparison-levels.ts';
import { NO_ERRORS_TAG, type TruthEntry } from './metrics.ts';

/**
 * The oracle ceiling: how many member rows a matcher that knew every voter's agreement with the
 * row, field by field, could still tell apart from everyone else. It reads the candidate stage's
 * ranking (every candidate, up to 10, with its `sm.explain`) and asks, per member row, whether
 * another voter agrees with the row at least as well as the true voter on every field: then
 * nothing in the row tells the two apart (a namesake with the same dob, a near-twin sharing all
 * the row gives), and no matcher can be expected to find the person. Names read swapped
 * (`names=swapped`) rank below names as written. The ceiling is that of selection: a row whose
 * true voter the candidate search did not find is outside it and counted apart (`notFound`),
 * as the candidate stage's miss (a mover's row, with nothing but the name, is one).
 */

export type OracleVerdict = 'identifiable' | 'ambiguous' | 'not_found';

export interface OracleCandidate {
  voterbaseId: string;
  /** `first=exact last=typo …` as sm.explain writes it. */
  explain?: string | undefined;
}

/** Per field: level name → rank (0 best); `differ`-like last levels worst, not compared between. */
const RANKS: ReadonlyMap<string, ReadonlyMap<string, number>> = new Map(
  FIELDS.map((field) => [
    field.name,
    new Map(field.levels.map((level, i) => [level, i === field.levels.length - 1 ? field.levels.length : i])),
  ]),
);
const NOT_COMPARED = (field: string) => (RANKS.get(field)?.size ?? 1) - 0.5;
/** `names=swapped` as a field of its own: absent (as written) ranks 0, swapped 1. */
const NAMES = 'names';

function ranksOf(explain: string): Map<string, number> {
  const ranks = new Map<string, number>([[NAMES, explain.includes('names=swapped') ? 1 : 0]]);
  for (const token of explain.split(' ')) {
    const eq = token.indexOf('=');
    if (eq <= 0) continue;
    const field = token.slice(0, eq);
    const rank = RANKS.get(field)?.get(token.slice(eq + 1));
    if (rank !== undefined) ranks.set(field, rank);
  }
  return ranks;
}

/** Whether `other` agrees with the row at least as well as `truth` on every field. */
function asGoodEverywhere(other: Map<string, number>, truth: Map<string, number>): boolean {
  if (other.get(NAMES)! > truth.get(NAMES)!) return false;
  for (const field of RANKS.keys()) {
    const o = other.get(field) ?? NOT_COMPARED(field);
    const t = truth.get(field) ?? NOT_COMPARED(field);
    if (o > t) return false;
  }
  return true;
}

export function oracleVerdict(
  truthIds: readonly string[],
  candidates: readonly OracleCandidate[],
): OracleVerdict {
  const own = candidates.filter((c) => truthIds.includes(c.voterbaseId));
  if (own.length === 0) return 'not_found';
  const others = candidates
    .filter((c) => !truthIds.includes(c.voterbaseId))
    .map((c) => ranksOf(c.explain ?? ''));
  // The true voter may be listed twice (as written and with the names swapped): its best reading.
  for (const truth of own) {
    const truthRanks = ranksOf(truth.explain ?? '');
    if (!others.some((other) => asGoodEverywhere(other, truthRanks))) return 'identifiable';
  }
  return 'ambiguous';
}

/** The ceiling of one group of member rows (all of them, a pattern, an error tag). */
export interface OracleFigures {
  members: number;
  /** Members another voter agrees with as well as their own on every field. */
  ambiguous: number;
  /** Members whose voter the candidate search did not find (outside the ceiling). */
  notFound: number;
  /** (members − ambiguous − notFound) / members; null without members. */
  ceiling: number | null;
}

export interface OracleResult {
  overall: OracleFigures;
  byPattern: ({ pattern: string } & OracleFigures)[];
  byErrorTag: ({ tag: string } & OracleFigures)[];
}

class OracleCounts {
  members = 0;
  ambiguous = 0;
  notFound = 0;
  add(verdict: OracleVerdict): void {
    this.members++;
    if (verdict === 'ambiguous') this.ambiguous++;
    if (verdict === 'not_found') this.notFound++;
  }
  figures(): OracleFigures {
    const { members, ambiguous, notFound } = this;
    const ceiling = members === 0 ? null : (members - ambiguous - notFound) / members;
    return { members, ambiguous, notFound, ceiling };
  }
}

export class OracleAccumulator {
  private readonly overall = new OracleCounts();
  private readonly patterns = new Map<string, OracleCounts>();
  private readonly tags = new Map<string, OracleCounts>();

  /** One list row: members only (a non-member has no person to tell apart). */
  add(truth: TruthEntry, candidates: readonly OracleCandidate[]): void {
    if (truth.voterbaseIds.length === 0) return;
    const verdict = oracleVerdict(truth.voterbaseIds, candidates);
    this.overall.add(verdict);
    this.group(this.patterns, truth.pattern).add(verdict);
    for (const tag of truth.errors.length === 0 ? [NO_ERRORS_TAG] : new Set(truth.errors)) {
      this.group(this.tags, tag).add(verdict);
    }
  }

  result(): OracleResult {
    const sorted = <T>(map: Map<string, OracleCounts>, key: (name: string) => T) =>
      [...map]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([name, c]) => ({ ...key(name), ...c.figures() }));
    return {
      overall: this.overall.figures(),
      byPattern: sorted(this.patterns, (pattern) => ({ pattern })),
      byErrorTag: sorted(this.tags, (tag) => ({ tag })),
    };
  }

  private group(map: Map<string, OracleCounts>, name: string): OracleCounts {
    let counts = map.get(name);
    if (counts === undefined) {
      counts = new OracleCounts();
      map.set(name, counts);
    }
    return counts;
  }
}
