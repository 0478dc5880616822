import { Rng } from './random.ts';
import { generateVoterRows, SYNTHETIC_STATES } from './voters/voter-generator.ts';

/**
 * Public entry point of the synthetic voter file (the generator lives in `voters/`) and a small demo
 * contact list built from its rows.
 */

export type {
  AreaType,
  VoterColumn,
  VoterGeneratorOptions,
  WriteVotersOptions,
} from './voters/voter-generator.ts';
export {
  EXTRA_VOTER_COLUMNS,
  generateVoterRows,
  MAX_SYNTHETIC_ROWS,
  SYNTHETIC_STATES,
  SYNTHETIC_VOTER_COLUMNS,
  VOTER_COLUMNS,
  writeVotersCsv,
} from './voters/voter-generator.ts';

const STREAM_CONTACTS = 2;
const PROVIDERS = ['gmail.com', 'yahoo.com', 'hotmail.com', 'outlook.com', 'icloud.com', 'aol.com'];

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

function asciiLetters(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[^A-Za-z]/g, '')
    .toLowerCase();
}

// ---------------------------------------------------------------------------------------------
// Demo contact list

export const CONTACT_COLUMNS = [
  'matchback_id',
  'first_name',
  'last_name',
  'address1',
  'city',
  'state',
  'zip',
  'voter_id',
  'email',
] as const;

export interface ContactListOptions {
  /** Voter rows in VOTER_COLUMNS order, e.g. from generateVoterRows; read once, to the end. */
  voters: Iterable<readonly string[]>;
  /** Contact rows to produce, 0..100,000. */
  rows: number;
  seed: number;
  /** Fraction of rows copied from real voters, 0..1. */
  matchRate: number;
  /** Fraction of those voter rows that keep their voter_id (default 0.5); the rest leave it empty. */
  idRate?: number;
}

export interface ContactList {
  /** CONTACT_COLUMNS. */
  header: string[];
  /** Rows in header order; matchback_ids run MB000001, MB000002, ... in row order. */
  rows: string[][];
  /** matchback_id → voterbase_id of every row copied from a voter. */
  members: Map<string, string>;
}

/**
 * Builds a small demo contact list from voter rows: `round(rows × matchRate)` voters are drawn
 * uniformly (reservoir sampling, so only the sample is held) and copied with their name, address1,
 * city, state, zip and email; `round(members × idRate)` of them keep `voter_id` so the deterministic
 * id matcher finds them, the others carry no id. The remaining rows are invented non-members from the
 * same states: their house numbers (90000-99999) and emails (`first.last.123@...`) never occur in
 * the voter file, although a common name may still recur in their ZIP. Rows are shuffled, then
 * numbered. If `voters` holds fewer rows than requested members, all of them are used and the list
 * is topped up with non-members, so it always has `rows` rows. Deterministic for a given seed and
 * voter sequence.
 */
export function sampleContactList(options: ContactListOptions): ContactList {
  const { rows, seed, matchRate } = options;
  const idRate = options.idRate ?? 0.5;
  if (!Number.isSafeInteger(rows) || rows < 0 || rows > 100_000) {
    throw new RangeError(`rows must be an integer in [0, 100000], got ${rows}`);
  }
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be a safe integer, got ${seed}`);
  if (!(matchRate >= 0 && matchRate <= 1))
    throw new RangeError(`matchRate must be in [0, 1], got ${matchRate}`);
  if (!(idRate >= 0 && idRate <= 1)) throw new RangeError(`idRate must be in [0, 1], got ${idRate}`);

  const rng = new Rng(seed, STREAM_CONTACTS);
  const wanted = Math.round(rows * matchRate);
  const sample: (readonly string[])[] = [];
  const seenStates = new Set<string>();
  let seen = 0;
  for (const voter of options.voters) {
    seenStates.add(voter[1] ?? '');
    if (wanted === 0) continue;
    if (sample.length < wanted) sample.push(voter);
    else {
      const slot = rng.int(seen + 1);
      if (slot < wanted) sample[slot] = voter;
    }
    seen++;
  }

  const withIds = Math.round(sample.length * idRate);
  const drafts: { row: string[]; voterbaseId: string }[] = sample.map((voter, i) => ({
    row: [
      '',
      voter[5] ?? '',
      voter[7] ?? '',
      voter[9] ?? '',
      voter[11] ?? '',
      voter[1] ?? '',
      voter[12] ?? '',
      i < withIds ? (voter[2] ?? '') : '',
      voter[17] ?? '',
    ],
    voterbaseId: voter[0] ?? '',
  }));

  const known = SYNTHETIC_STATES.filter((code) => seenStates.has(code));
  const missing = rows - drafts.length;
  if (missing > 0) {
    // Invented people: realistic names and places from another stream of the generator, moved to
    // house numbers (90000-99999) and e-mails (`first.last.123@`) that the voter file never uses.
    const others = generateVoterRows({
      rows: missing,
      seed: rng.next(),
      states: known.length > 0 ? known : undefined,
    });
    for (const other of others) {
      const first = other[5] ?? '';
      const last = other[7] ?? '';
      const street = (other[9] ?? '').replace(/^(\d+ |PO BOX |RR \d+ BOX )/, '');
      const mail = rng.chance(0.5)
        ? `${asciiLetters(first)}.${asciiLetters(last)}.${rng.range(100, 999)}@${rng.pick(PROVIDERS)}`
        : '';
      drafts.push({
        row: [
          '',
          first,
          last,
          `${rng.range(90_000, 99_999)} ${street}`,
          other[11] ?? '',
          other[1] ?? '',
          other[12] ?? '',
          '',
          mail,
        ],
        voterbaseId: '',
      });
    }
  }

  for (let i = drafts.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    const swap = drafts[i]!;
    drafts[i] = drafts[j]!;
    drafts[j] = swap;
  }
  const members = new Map<string, string>();
  const out = drafts.map((draft, i) => {
    const id = `MB${pad(i + 1, 6)}`;
    draft.row[0] = id;
    if (draft.voterbaseId !== '') members.set(id, draft.voterbaseId);
    return draft.row;
  });
  return { header: [...CONTACT_COLUMNS], rows: out, members };
}

/** The contact list as CSV text: header line, one line per row, `\n` endings (RFC 4180 quoting if needed). */
export function contactListCsv(list: ContactList): string {
  const lines = [list.header, ...list.rows].map((row) => row.map(csvField).join(','));
  return `${lines.join('\n')}\n`;
}

function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}
