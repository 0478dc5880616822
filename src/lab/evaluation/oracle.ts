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
  /**
   * The share of members a matcher deciding by the agreement profile alone (which field agrees at
   * which level, as `sm.explain` names it) could accept while its precision stays at
   * CEILING_PRECISION, the non-member rows whose best candidate shows the same profile counted
   * against it (profilesAtPrecision); null without members. Below `ceiling` where rows look like
   * non-members of the list (a near-twin sharing the name and city of a voter, with the city and
   * not the ZIP written).
   */
  ceilingAtPrecision: number | null;
}

export interface OracleResult {
  overall: OracleFigures;
  byPattern: ({ pattern: string } & OracleFigures)[];
  byErrorTag: ({ tag: string } & OracleFigures)[];
}

/** The precision the precision-bound ceiling keeps (the target for every pattern). */
export const CEILING_PRECISION = 0.995;

class OracleCounts {
  members = 0;
  ambiguous = 0;
  notFound = 0;
  accepted = 0;
  add(verdict: OracleVerdict): void {
    this.members++;
    if (verdict === 'ambiguous') this.ambiguous++;
    if (verdict === 'not_found') this.notFound++;
  }
  figures(): OracleFigures {
    const { members, ambiguous, notFound, accepted } = this;
    const ceiling = members === 0 ? null : (members - ambiguous - notFound) / members;
    return {
      members,
      ambiguous,
      notFound,
      ceiling,
      ceilingAtPrecision: members === 0 ? null : accepted / members,
    };
  }
}

/** Members and non-members that show one agreement profile. */
export interface ProfileClass {
  members: number;
  nonMembers: number;
}

/**
 * The profiles a matcher deciding by profile alone would accept while keeping its precision at
 * `precision` on any list: those whose rows are right that often or more (members ÷ rows of the
 * profile). One profile's purity does not pay for another's: the list's mix of patterns is not
 * the matcher's to know, and the precision target holds for every pattern's list.
 */
export function profilesAtPrecision(
  classes: ReadonlyMap<string, ProfileClass>,
  precision = CEILING_PRECISION,
): Set<string> {
  const accepted = new Set<string>();
  for (const [key, c] of classes) {
    if (c.members > 0 && c.members / (c.members + c.nonMembers) >= precision) accepted.add(key);
  }
  return accepted;
}

/** A candidate's agreement profile: each field's level rank, in field order (names read swapped apart). */
function profileOf(explain: string): string {
  const ranks = ranksOf(explain);
  return [NAMES, ...RANKS.keys()].map((field) => `${field}:${ranks.get(field) ?? '-'}`).join(' ');
}

export class OracleAccumulator {
  private readonly overall = new OracleCounts();
  private readonly patterns = new Map<string, OracleCounts>();
  private readonly tags = new Map<string, OracleCounts>();

  /** Identifiable members by the profile their voter shows, with their groups; non-members by their best candidate's. */
  private readonly classes = new Map<string, ProfileClass & { groups: OracleCounts[][] }>();

  /**
   * One list row. A member is told apart from the other voters (oracleVerdict); a non-member row
   * has no person to find, but its best candidate's profile counts against accepting that profile.
   */
  add(truth: TruthEntry, candidates: readonly OracleCandidate[]): void {
    if (truth.voterbaseIds.length === 0) {
      const best = candidates[0];
      if (best !== undefined) this.classOf(profileOf(best.explain ?? '')).nonMembers++;
      return;
    }
    const verdict = oracleVerdict(truth.voterbaseIds, candidates);
    const groups = [this.overall, this.group(this.patterns, truth.pattern)];
    for (const tag of truth.errors.length === 0 ? [NO_ERRORS_TAG] : new Set(truth.errors)) {
      groups.push(this.group(this.tags, tag));
    }
    for (const group of groups) group.add(verdict);
    if (verdict !== 'identifiable') return;
    // The true voter's best reading (as written before swapped), the one that identifies it.
    const own = candidates
      .filter((c) => truth.voterbaseIds.includes(c.voterbaseId))
      .map((c) => profileOf(c.explain ?? ''))
      .sort((a, b) => Number(a.includes(`${NAMES}:1`)) - Number(b.includes(`${NAMES}:1`)))[0]!;
    const c = this.classOf(own);
    c.members++;
    c.groups.push(groups);
  }

  result(): OracleResult {
    for (const key of profilesAtPrecision(this.classes)) {
      for (const groups of this.classes.get(key)!.groups) for (const group of groups) group.accepted++;
    }
    this.classes.clear();
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

  private classOf(profile: string) {
    let c = this.classes.get(profile);
    if (c === undefined) {
      c = { members: 0, nonMembers: 0, groups: [] };
      this.classes.set(profile, c);
    }
    return c;
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
