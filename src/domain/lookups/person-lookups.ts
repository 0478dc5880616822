import type { AppendedField } from '../keys/key-types.ts';
import { inShard } from '../list-matching/stages/match.ts';
import { mergeOutcomes, withSwappedReadings } from '../list-matching/stages/merge.ts';
import { placeRow } from '../list-matching/stages/place.ts';
import { personHomes } from '../list-matching/stages/route.ts';
import { jaroWinkler } from '../matching/compare/string-similarity.ts';
import type { IdentifierColumn, MatchCandidate, MatchInput, MatchOptions } from '../matching/matcher.ts';
import { normalizeEmail, normalizePhone } from '../matching/normalize/contact.ts';
import { normalizeInput } from '../matching/normalize/person.ts';
import { idKey } from '../voters/id-keys.ts';
import type { IdIndexName } from '../voters/voter-columns.ts';
import type { LookupPart, LookupVoterFile } from './lookup-voter-file.ts';

/** A returned record: `vb.*` fields (and, where said, the matcher's `sm.score` and `sm.explain`). */
export type FieldMap = Record<string, string | number>;

export interface LookupThresholds {
  /** Registration check: the lowest score of the one match it confirms (conservative). */
  confidentScore: number;
  /** Registration check: candidates at or above this that cannot be told apart answer too_many. */
  ambiguousScore: number;
  /** Phone and e-mail searches and data-enhance by phone or e-mail: the lowest score returned. */
  contactScore: number;
}

export const DEFAULT_LOOKUP_THRESHOLDS: LookupThresholds = {
  confidentScore: 90,
  ambiguousScore: 20,
  contactScore: 50,
};

/** How many candidates a person's lookup keeps (a phone a household shares has several). */
const CONTACT_MATCHES = 10;
const REGISTRATION_CANDIDATES = 5;

/**
 * The single-person lookups over the voter file's matcher: the same normalization, candidates,
 * scores and `sm.explain` as a list's row gets (with the lookup model, lookupModel), shard by
 * shard where the file is sharded, merged as a sharded list's rows are (mergeOutcomes).
 */
export class PersonLookups {
  private readonly file: LookupVoterFile;
  private readonly fields: readonly AppendedField[];
  private readonly thresholds: LookupThresholds;
  private readonly now: Date;

  constructor(
    file: LookupVoterFile,
    appended: readonly AppendedField[],
    thresholds: LookupThresholds,
    now = new Date(),
  ) {
    this.file = file;
    this.fields = appended;
    this.thresholds = thresholds;
    this.now = now;
  }

  /**
   * One person's candidates in every part of the file the row can be in, merged best first:
   * `rank` takes the best whatever their evidence (radius search), else the selecting matcher's.
   */
  async match(
    fields: Partial<Record<IdentifierColumn, string>>,
    maxMatches: number,
    options: { rank?: boolean; searchRadiusMiles?: number | null } = {},
  ): Promise<{ part: LookupPart; candidate: MatchCandidate }[]> {
    const normalized = normalizeInput(fields, this.now);
    const row: MatchInput = { row: 1, fields, normalized };
    const matchOptions: MatchOptions = {
      maxMatches,
      searchRadiusMiles: options.searchRadiusMiles ?? null,
      asOf: this.now,
    };
    let parts = await this.file.partsFor(row, this.now);
    let asked = row;
    if (this.file.map !== null) {
      // Placed over its shards, and asked too where its radius reaches from one shard (place.ts),
      // as a list row; asked in several, its names are searched swapped as a list row's are: both
      // readings here, and the swapped one only when no shard matched the names as written.
      const indexIn = (held: readonly LookupPart[]) => (shard: number) =>
        held.find((part) => part.shard === shard)?.index ?? null;
      const near = this.file.near.bind(this.file);
      const radius = matchOptions.searchRadiusMiles;
      const shards = parts.map((part) => part.shard);
      const map = this.file.map;
      const placed = placeRow(normalized, shards, indexIn(parts), near, radius, (person) =>
        personHomes(map, person),
      );
      // The shards its radius reaches search it around the place its own shard gave it.
      if (placed.shards.length > shards.length)
        parts = await Promise.all(placed.shards.map((shard) => this.file.part(shard)));
      asked = { ...row, normalized: placed.normalized, ...(parts.length > 1 ? { swap: 'both' } : {}) };
    }
    const outcomes = await Promise.all(
      parts.map(async (part) => {
        const matcher = options.rank === true ? part.rank : part.select;
        const [outcome] = await matcher.matchBatch([asked], matchOptions);
        return inShard(outcome!, part.shard);
      }),
    );
    // Weighed over every shard as the whole file selects: at the selecting matcher's threshold.
    const threshold = options.rank === true ? 0 : this.file.candidateScore;
    const merged = withSwappedReadings(
      mergeOutcomes(outcomes, maxMatches, threshold),
      outcomes,
      maxMatches,
      threshold,
    );
    const byShard = new Map(parts.map((part) => [part.shard, part]));
    return merged.candidates.map((candidate) => ({ part: byShard.get(candidate.shard ?? 0)!, candidate }));
  }

  /** A voter's `vb.*` map: voterbase_id, then the profile's appended fields. */
  record(part: LookupPart, voter: number): FieldMap {
    const snapshot = part.snapshot;
    const columns = [
      snapshot.columnIndex('voterbase_id'),
      ...this.fields.map((f) => snapshot.columnIndex(f.source)),
    ];
    const values = snapshot.fields(voter, columns);
    const map: FieldMap = { 'vb.voterbase_id': values[0] ?? '' };
    this.fields.forEach((field, i) => {
      map[`vb.${field.as}`] = values[i + 1] ?? '';
    });
    return map;
  }

  /** Columns of the voter's record by name ('' for a column the file lacks). */
  values(part: LookupPart, voter: number, names: readonly string[]): string[] {
    return part.snapshot.fields(
      voter,
      names.map((name) => part.snapshot.columnIndex(name)),
    );
  }

  /**
   * clients.md 25: `result` only for exactly one confident match (at least confidentScore, not
   * flagged ambiguous), `too_many` when two or more candidates reach ambiguousScore and none is
   * confident. The set holds the confirmed record only: no match is better than the wrong person.
   */
  async registrationCheck(fields: Partial<Record<IdentifierColumn, string>>): Promise<{
    result: boolean;
    too_many: boolean;
    result_set: FieldMap[];
  }> {
    const found = await this.match(fields, REGISTRATION_CANDIDATES);
    const { confidentScore, ambiguousScore } = this.thresholds;
    const best = found[0];
    const second = found[1]?.candidate.score ?? 0;
    const confident =
      best !== undefined &&
      best.candidate.score >= confidentScore &&
      second < ambiguousScore &&
      !(best.candidate.explain ?? '').includes('ambiguous');
    if (!confident) {
      const close = found.filter((f) => f.candidate.score >= ambiguousScore).length;
      return { result: false, too_many: close >= 2, result_set: [] };
    }
    const { part, candidate } = best;
    const [status = ''] = this.values(part, candidate.voter, [statusColumn(part)]);
    return {
      result: true,
      too_many: false,
      result_set: [
        {
          ...this.record(part, candidate.voter),
          'vb.voterbase_registration_status': 'Registered',
          ...(status === '' ? {} : { 'vb.vf_voter_status': titleCase(status) }),
          'sm.score': Math.round(candidate.score),
          'sm.explain': candidate.explain ?? '',
        },
      ],
    };
  }

  /** Records carrying an id (verified against the index, never a hash guess). */
  async byId(index: IdIndexName, value: string, state: string | null): Promise<FieldMap[]> {
    return (await this.votersWithId(index, value, state)).map(({ part, voter }) => this.record(part, voter));
  }

  /** The voters carrying an id, in the parts of the file it can be in. */
  async votersWithId(
    index: IdIndexName,
    value: string,
    state: string | null,
  ): Promise<{ part: LookupPart; voter: number }[]> {
    const key = idKey(index, value, state ?? '');
    if (key === null) return [];
    const parts = await this.file.partsForId(index, value, state);
    return parts.flatMap((part) => part.snapshot.lookup(index, key).map((voter) => ({ part, voter })));
  }

  /**
   * Where a one-line address lies, by the voter file: the mean position of its ZIP's voters.
   * Null when it names no ZIP the file holds.
   */
  async locate(address: string): Promise<[number, number] | null> {
    const fields = { address1: address };
    const normalized = normalizeInput(fields, this.now);
    const zip = normalized.persons[0]?.zip ?? '';
    if (zip === '') return null;
    for (const part of await this.file.partsFor({ row: 1, fields, normalized }, this.now)) {
      const centroid = part.index.zipCentroid(Number(zip));
      if (centroid !== null) return centroid;
    }
    return null;
  }

  /**
   * The voters one phone or e-mail address finds (the matcher's contact candidates scoring at
   * least contactScore), each with its score and explanation; null for a value that is no phone
   * or e-mail address.
   */
  async byContact(kind: 'phone' | 'email', value: string): Promise<FieldMap[] | null> {
    const normalized = kind === 'phone' ? normalizePhone(value) : normalizeEmail(value);
    if (normalized === null) return null;
    const found = await this.match({ [kind]: value }, CONTACT_MATCHES);
    return found
      .filter((f) => f.candidate.score >= this.thresholds.contactScore)
      .map(({ part, candidate }) => ({
        ...this.record(part, candidate.voter),
        'sm.score': Math.round(candidate.score),
        'sm.explain': candidate.explain ?? '',
      }));
  }

  /**
   * The household of a voter: the voters at its address (house, street, ZIP) under its surname,
   * itself first, as the matcher ranks a row of that surname and address.
   */
  async household(part: LookupPart, voter: number): Promise<FieldMap[]> {
    const [last = '', address1 = '', city = '', state = '', zip = ''] = this.values(part, voter, [
      'last_name',
      'address1',
      'city',
      'state',
      'zip',
    ]);
    const own = this.record(part, voter);
    if (address1 === '') return [own];
    const found = await this.match({ last_name: last, address1, city, state, zip }, CONTACT_MATCHES, {
      rank: true,
    });
    const home = addressOf(address1, zip);
    const members = found.filter(
      (f) =>
        !(f.part === part && f.candidate.voter === voter) &&
        (() => {
          const [a = '', z = ''] = this.values(f.part, f.candidate.voter, ['address1', 'zip']);
          return addressOf(a, z) === home;
        })(),
    );
    return [own, ...members.map((f) => this.record(f.part, f.candidate.voter))];
  }
}

/** The column a voter file keeps its registration status in (vb.vf_voter_status). */
function statusColumn(part: LookupPart): string {
  for (const name of ['vf_voter_status', 'voter_status', 'registration_status'])
    if (part.snapshot.columnIndex(name) >= 0) return name;
  return 'vf_voter_status';
}

const titleCase = (value: string) =>
  value
    .toLowerCase()
    .split(/\s+/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ');

const addressOf = (address1: string, zip: string) =>
  `${address1.trim().toUpperCase().replace(/\s+/g, ' ')}|${zip.trim().slice(0, 5)}`;

/** Name similarity 0-100: the mean Jaro-Winkler of first and last names, as normalized. */
export function nameSimilarity(first: string, last: string, voterFirst: string, voterLast: string): number {
  return Math.round(50 * (jaroWinkler(first, voterFirst) + jaroWinkler(last, voterLast)));
}
