import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { readCsvTable } from '../../../domain/csv/csv-reader.ts';
import { canonicalAddress, parseAddress } from '../../../domain/matching/normalize/address.ts';
import { packDate, parseDob as parseDobAnyShape } from '../../../domain/matching/normalize/dates.ts';
import { providerOfTypo } from '../../../domain/matching/normalize/email-domain-typos.ts';
import { cleanName, parseCoupleName, withoutAsides } from '../../../domain/matching/normalize/names.ts';
import { generateVoterRows, VOTER_COLUMNS } from '../synthetic-voters.ts';
import {
  ageOn,
  clearlyDifferentNames,
  distanceMeters,
  emailKey,
  parseDob,
  phoneDigits,
  streetWithoutUnit,
} from './error-model.ts';
import type { ErrorTag, ListReport, Pattern, SubPattern } from './generate-list.ts';
import {
  ERROR_RATES,
  ERROR_TAGS,
  generateContactList,
  generateContactListFromFile,
  PATTERN_HEADERS,
  PATTERNS,
  SUB_PATTERN_COLUMNS,
  SUB_PATTERNS,
  TRUTH_HEADER,
} from './generate-list.ts';
import { FORMALS_BY_NICKNAME, NICKNAME_PAIR_COUNT, NICKNAMES_BY_FORMAL } from './nicknames.ts';

class Sink extends Writable {
  readonly chunks: Buffer[] = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.chunks.push(Buffer.from(chunk));
    callback();
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

async function* bytes(buffer: Buffer): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < buffer.length; i += 64 * 1024) yield buffer.subarray(i, i + 64 * 1024);
}

async function parseCsv(text: string): Promise<{ header: string[]; rows: string[][] }> {
  let header: string[] = [];
  const rows: string[][] = [];
  for await (const event of readCsvTable(bytes(Buffer.from(text)), {
    maxRowBytes: 1 << 20,
    onWarning: (w) => assert.fail(`csv warning ${w.message}`),
  })) {
    if (event.kind === 'header') header = event.header;
    else for (const r of event.rows) rows.push(r.fields);
  }
  return { header, rows };
}

type Row = Record<string, string>;

function objects(header: string[], rows: string[][]): Row[] {
  return rows.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i] ?? ''])));
}

function voterCsv(rows: number, seed: number): Buffer {
  let text = `${VOTER_COLUMNS.join(',')}\n`;
  for (const row of generateVoterRows({ rows, seed })) text += `${row.join(',')}\n`;
  return Buffer.from(text);
}

interface Run {
  listText: string;
  truthText: string;
  list: Row[];
  header: string[];
  truth: Row[];
  report: ListReport;
}

async function run(
  voters: Buffer,
  rows: number,
  matchRate: number,
  pattern: Pattern,
  seed = 1,
): Promise<Run> {
  const out = new Sink();
  const truth = new Sink();
  const report = await generateContactList({
    voters: bytes(voters),
    rows,
    matchRate,
    pattern,
    seed,
    out,
    truth,
  });
  const l = await parseCsv(out.text());
  const t = await parseCsv(truth.text());
  assert.deepEqual(t.header, [...TRUTH_HEADER]);
  return {
    listText: out.text(),
    truthText: truth.text(),
    list: objects(l.header, l.rows),
    header: l.header,
    truth: objects(t.header, t.rows),
    report,
  };
}

const VOTERS = voterCsv(30_000, 11);
let voterById: Map<string, Row>;
let votersByNameCity: Set<string>;
let votersByNameState: Map<string, { city: string; zip: string }[]>;
let votersByNameDob: Set<string>;
let voterPhones: Set<string>;
let voterEmails: Set<string>;
let voterIds: Set<string>;
/** Given and middle names of the file's women and men; `zip|address1` and `lat|lon` of every voter; ZIPs by city. */
let givenNames: Record<string, Set<string>>;
let middleNames: Record<string, Set<string>>;
let streetAddresses: Set<string>;
let coordinates: Set<string>;
let zipsOfCity: Map<string, Set<string>>;
const runs = new Map<SubPattern | 'mixed', Run>();

before(async () => {
  const parsed = await parseCsv(VOTERS.toString('utf8'));
  const voters = objects(parsed.header, parsed.rows);
  voterById = new Map(voters.map((v) => [v.voterbase_id!, v]));
  votersByNameCity = new Set(voters.map((v) => `${v.first_name}|${v.last_name}|${v.city}`));
  votersByNameState = new Map();
  for (const v of voters) {
    const key = `${v.first_name}|${v.last_name}|${v.state}`;
    votersByNameState.set(key, [...(votersByNameState.get(key) ?? []), { city: v.city!, zip: v.zip! }]);
  }
  votersByNameDob = new Set(voters.map((v) => `${v.first_name}|${v.last_name}|${v.dob}`));
  voterPhones = new Set(
    voters.flatMap((v) => [v.landline_phone!, v.wireless_phone!, v.voip_phone!]).filter((p) => p !== ''),
  );
  voterEmails = new Set(voters.filter((v) => v.email !== '').map((v) => emailKey(v.email!)));
  voterIds = new Set(
    voters.flatMap((v) => [
      v.voterbase_id!,
      `${v.state}|${v.voter_id!.replace(/^0+/, '')}`,
      `${v.state}|${v.smartvan_id}`,
      v.exact_track!,
    ]),
  );
  givenNames = { F: new Set(), M: new Set() };
  middleNames = { F: new Set(), M: new Set() };
  streetAddresses = new Set();
  coordinates = new Set();
  zipsOfCity = new Map();
  for (const v of voters) {
    givenNames[v.gender!]?.add(v.first_name!);
    middleNames[v.gender!]?.add(v.middle_name!);
    streetAddresses.add(`${v.zip}|${v.address1}`);
    coordinates.add(`${v.latitude}|${v.longitude}`);
    const city = `${v.city}|${v.state}`;
    zipsOfCity.set(city, (zipsOfCity.get(city) ?? new Set()).add(v.zip!));
  }
  for (const pattern of [...SUB_PATTERNS, 'mixed'] as const) {
    runs.set(pattern, await run(VOTERS, 4000, 0.8, pattern, 7));
  }
});

/** An e-mail with its mistyped provider's domain put right (email_domain_typo), as the matcher reads it. */
function withProvider(email: string): string {
  const at = email.lastIndexOf('@');
  const provider = providerOfTypo(email.slice(at + 1).toLowerCase());
  return provider === null ? email : `${email.slice(0, at)}@${provider}`;
}

function tagsOf(row: Row): Set<string> {
  return new Set(row.errors === '' ? [] : row.errors!.split(';'));
}

/** Joined list and truth rows of a run. */
function* joined(r: Run): Generator<{ cells: Row; truth: Row; tags: Set<string> }> {
  for (let i = 0; i < r.list.length; i++) {
    const cells = r.list[i]!;
    const truth = r.truth[i]!;
    assert.equal(cells.matchback_id, truth.matchback_id);
    yield { cells, truth, tags: tagsOf(truth) };
  }
}

describe('generateContactList', () => {
  it('is deterministic by seed (byte-identical outputs) and varies with it', async () => {
    const voters = voterCsv(3000, 5);
    const a = await run(voters, 500, 0.6, 'mixed', 42);
    const b = await run(voters, 500, 0.6, 'mixed', 42);
    const c = await run(voters, 500, 0.6, 'mixed', 43);
    assert.equal(a.listText, b.listText);
    assert.equal(a.truthText, b.truthText);
    assert.deepEqual(a.report, b.report);
    assert.notEqual(a.listText, c.listText);
  });

  it('writes the documented header for every pattern, and mixed is the union', () => {
    for (const pattern of PATTERNS) {
      const r = runs.get(pattern)!;
      assert.deepEqual(r.header, [...PATTERN_HEADERS[pattern]]);
      assert.equal(r.header[0], 'matchback_id');
    }
    const union = new Set(SUB_PATTERNS.flatMap((s) => SUB_PATTERN_COLUMNS[s]));
    assert.deepEqual(new Set(PATTERN_HEADERS.mixed.slice(1)), union);
    assert.deepEqual(
      [...PATTERN_HEADERS.name_address],
      [
        'matchback_id',
        'first_name',
        'middle_name',
        'last_name',
        'name_suffix',
        'full_name',
        'first_name_combined',
        'address1',
        'address2',
        'city',
        'state',
        'zip',
        'dob',
      ],
    );
    assert.deepEqual([...PATTERN_HEADERS.phone], ['matchback_id', 'phone']);
  });

  it('mixed covers every pattern and fills only the cells of each row’s sub-pattern', () => {
    const r = runs.get('mixed')!;
    const seen = new Map<string, number>();
    for (const { cells, truth } of joined(r)) {
      const sub = truth.pattern as SubPattern;
      seen.set(sub, (seen.get(sub) ?? 0) + 1);
      const allowed = new Set<string>(['matchback_id', ...SUB_PATTERN_COLUMNS[sub]]);
      for (const [column, value] of Object.entries(cells)) {
        if (value !== '') assert.ok(allowed.has(column), `${sub} row fills ${column}`);
      }
    }
    for (const sub of SUB_PATTERNS) assert.ok((seen.get(sub) ?? 0) > 300, `${sub}: ${seen.get(sub)}`);
    for (const sub of SUB_PATTERNS) assert.equal(r.report.patterns[sub], seen.get(sub));
  });

  it('has round(rows × matchRate) members, unique mixed-format matchback_ids, and truth ids from the file', () => {
    for (const [pattern, r] of runs) {
      assert.equal(r.list.length, 4000);
      assert.equal(r.truth.length, 4000);
      const members = r.truth.filter((t) => t.voterbase_id !== '');
      assert.equal(members.length, 3200, pattern);
      assert.equal(r.report.members, 3200);
      assert.equal(r.report.nonMembers, 800);
      assert.equal(r.truth.filter((t) => tagsOf(t).has('near_twin')).length, r.report.nearTwins);
      assert.equal(r.report.nearTwins, 400);
      assert.equal(r.report.nearTwins + r.report.traps + r.report.invented, r.report.nonMembers);
      for (const t of members) {
        for (const id of t.voterbase_id!.split('|')) assert.ok(voterById.has(id), `unknown id ${id}`);
      }
      const ids = r.truth.map((t) => t.matchback_id!);
      assert.equal(new Set(ids).size, ids.length);
      assert.ok(ids.some((id) => /^\d+$/.test(id)));
      assert.ok(ids.some((id) => !/^\d+$/.test(id)));
    }
  });

  it('applies every error type at its documented rate (within binomial tolerance)', () => {
    const applied = Object.fromEntries(ERROR_TAGS.map((t) => [t, 0])) as Record<ErrorTag, number>;
    const opportunities = Object.fromEntries(ERROR_TAGS.map((t) => [t, 0])) as Record<ErrorTag, number>;
    for (const [pattern, r] of runs) {
      if (pattern === 'mixed') continue;
      const counted = Object.fromEntries(ERROR_TAGS.map((t) => [t, 0])) as Record<ErrorTag, number>;
      for (const t of r.truth) {
        for (const tag of tagsOf(t)) {
          assert.ok(tag in ERROR_RATES, `undocumented tag ${tag}`);
          counted[tag as ErrorTag]++;
        }
      }
      for (const tag of ERROR_TAGS) {
        assert.equal(counted[tag], r.report.errors[tag], `${pattern} ${tag}: truth vs report`);
        applied[tag] += counted[tag];
        opportunities[tag] += r.report.errorOpportunities[tag];
      }
    }
    for (const tag of ERROR_TAGS) {
      const n = opportunities[tag];
      const p = ERROR_RATES[tag];
      assert.ok(n >= 100, `${tag}: only ${n} eligible rows`);
      const observed = applied[tag] / n;
      const tolerance = 4 * Math.sqrt((p * (1 - p)) / n) + 0.003;
      assert.ok(
        Math.abs(observed - p) <= tolerance,
        `${tag}: observed ${observed.toFixed(4)} over ${n} rows, documented ${p} ± ${tolerance.toFixed(4)}`,
      );
    }
  });

  it('errors really change the values they claim to (checked against the voter file)', () => {
    const checked = new Map<string, number>();
    const bump = (tag: string): void => {
      checked.set(tag, (checked.get(tag) ?? 0) + 1);
    };
    for (const [pattern, r] of runs) {
      if (pattern === 'mixed') continue;
      for (const { cells, truth, tags } of joined(r)) {
        if (truth.voterbase_id === '') continue;
        const ids = truth.voterbase_id!.split('|');
        const v = voterById.get(ids[0]!)!;
        const upper = (s: string | undefined): string => (s ?? '').toUpperCase();
        if (tags.has('first_name_combined')) {
          assert.equal(ids.length, 2);
          const mate = voterById.get(ids[1]!)!;
          assert.equal(mate.last_name, v.last_name);
          assert.equal(mate.address1, v.address1);
          const names = upper(tags.has('couple_in_full_name') ? cells.full_name : cells.first_name_combined);
          assert.match(names, / (&|AND) /);
          assert.ok(names.includes(upper(v.first_name)));
          assert.ok(names.includes(upper(mate.first_name)));
          assert.equal(cells.first_name ?? '', '');
          if (tags.has('couple_in_full_name')) {
            assert.equal(cells.first_name_combined ?? '', '');
            if (!tags.has('typo_last') && !tags.has('name_scanned'))
              assert.ok(names.includes(upper(v.last_name)));
            // The matcher reads the two people back.
            const couple = parseCoupleName(cells.full_name!);
            assert.ok(couple !== null, cells.full_name);
            // A given name of two words comes back as first and middle name, which agree with it.
            assert.deepEqual(
              couple.map((person) => `${person.first} ${person.middle}`.trim()).sort(),
              [upper(v.first_name), upper(mate.first_name)].sort(),
            );
            bump('couple_in_full_name');
          }
          bump('first_name_combined');
        } else {
          assert.equal(ids.length, 1);
        }
        const namesMoved = [
          'middle_as_first',
          'names_swapped',
          'first_replaced',
          'goes_by_middle_no_middle',
        ].some((t) => tags.has(t));
        if (tags.has('nickname_aside')) {
          // The first name with its other form beside it, which the matcher leaves out.
          const [, written, other] = /^(.+) [("](.+)[)"]$/.exec(upper(cells.first_name)) ?? [];
          assert.ok(written !== undefined && other !== undefined, cells.first_name);
          assert.equal(withoutAsides(upper(cells.first_name)), written);
          assert.ok(
            (NICKNAMES_BY_FORMAL.get(written) ?? []).includes(other) ||
              (FORMALS_BY_NICKNAME.get(written) ?? []).includes(other),
            `${written} → ${other}`,
          );
          bump('nickname_aside');
        }
        if (
          tags.has('nickname') &&
          !tags.has('nickname_aside') &&
          !tags.has('typo_first') &&
          !namesMoved &&
          (cells.first_name ?? '') !== ''
        ) {
          const f = upper(cells.first_name);
          const vf = upper(v.first_name);
          assert.notEqual(f, vf);
          assert.ok(
            (NICKNAMES_BY_FORMAL.get(vf) ?? []).includes(f) ||
              (FORMALS_BY_NICKNAME.get(vf) ?? []).includes(f),
            `${vf} → ${f}`,
          );
          bump('nickname');
        }
        if (tags.has('full_name')) {
          assert.equal(cells.first_name, '');
          assert.equal(cells.last_name, '');
          assert.notEqual(cells.full_name, '');
          bump('full_name');
        }
        if (tags.has('case_lower')) {
          for (const c of ['first_name', 'last_name', 'full_name', 'city']) {
            const value = cells[c] ?? '';
            assert.equal(value, value.toLowerCase());
          }
          bump('case_lower');
        }
        if (pattern === 'name_address' && tags.has('one_line_address')) {
          if (tags.has('one_line_no_commas')) {
            assert.match(cells.address1!, /^[^,]+ [A-Z]{2} \d{5}$/i);
            bump('one_line_no_commas');
          } else assert.match(cells.address1!, /, .+ [A-Z]{2} \d{5}$/i);
          assert.equal(cells.city, '');
          assert.equal(cells.zip, '');
          bump('one_line_address');
        }
        if (
          tags.has('first_middle_joined') &&
          !['typo_first', 'nickname', 'names_swapped', 'full_name', 'nickname_aside'].some((t) => tags.has(t))
        ) {
          assert.equal(upper(cells.first_name), `${v.first_name} ${v.middle_name}`);
          assert.equal(cells.middle_name ?? '', '');
          bump('first_middle_joined');
        }
        if (pattern === 'name_dob' && tags.has('dob_format')) {
          // The matcher reads every shape back to the voter's date.
          const read = parseDobAnyShape(cells.dob!, new Date(Date.UTC(2026, 0, 1)));
          assert.ok(read !== null, cells.dob);
          assert.equal(packDate(read), Number(v.dob), cells.dob);
          assert.notEqual(cells.dob, v.dob);
          bump('dob_format');
        }
        if (pattern === 'name_address' && tags.has('mover') && !tags.has('one_line_address')) {
          assert.notEqual(cells.zip, v.zip);
          bump('mover');
        }
        if (pattern === 'name_address' && tags.size === 0) {
          assert.equal(cells.first_name, v.first_name);
          assert.equal(cells.last_name, v.last_name);
          assert.equal(cells.middle_name, v.middle_name);
          assert.equal(cells.address1, v.address1);
          assert.equal(cells.zip, v.zip);
          bump('none');
        }
        if (pattern === 'name_address' && tags.has('middle_initial') && !tags.has('full_name')) {
          assert.equal(upper(cells.middle_name), upper(v.middle_name).charAt(0));
          bump('middle_initial');
        }
        if (pattern === 'name_dob' && tags.has('dob_swap') && !tags.has('age_instead_of_dob')) {
          assert.equal(cells.dob, v.dob!.slice(0, 4) + v.dob!.slice(6, 8) + v.dob!.slice(4, 6));
          bump('dob_swap');
        }
        if (pattern === 'name_dob' && tags.has('dob_year') && !tags.has('age_instead_of_dob')) {
          assert.equal(Math.abs(Number(cells.dob!.slice(0, 4)) - Number(v.dob!.slice(0, 4))), 1);
          bump('dob_year');
        }
        if (pattern === 'name_dob' && tags.has('age_instead_of_dob')) {
          assert.equal(cells.dob, '');
          assert.match(cells.age!, /^\d+$/);
          bump('age_instead_of_dob');
        }
        const has = (...names: string[]) => names.some((name) => tags.has(name));
        const plainNames = !has(
          'full_name',
          'nickname',
          'typo_first',
          'typo_last',
          'married_surname',
          'nickname_aside',
          'first_replaced',
          'goes_by_middle_no_middle',
        );
        if (
          pattern === 'name_address' &&
          tags.has('names_swapped') &&
          plainNames &&
          !has('middle_as_first', 'first_middle_joined')
        ) {
          assert.equal(upper(cells.first_name), upper(v.last_name));
          assert.equal(upper(cells.last_name), upper(v.first_name));
          bump('names_swapped');
        }
        if (
          pattern === 'name_address' &&
          tags.has('middle_as_first') &&
          plainNames &&
          !has('names_swapped')
        ) {
          assert.equal(upper(cells.first_name), upper(v.middle_name));
          assert.equal(cells.middle_name, '');
          bump('middle_as_first');
        }
        const movers = ['mover', 'mover_in_city', 'mover_in_zip'];
        const addressAsIs = !has('one_line_address', 'typo_street', 'address_lines_swapped', ...movers);
        const streetTags = [
          'house_number_changed',
          'house_number_missing',
          'street_split_join',
          'unit_other_line',
          'house_number_glued',
        ];
        const only = (tag: string) => addressAsIs && streetTags.every((t) => t === tag || !tags.has(t));
        const a1 = upper(cells.address1);
        if (pattern === 'name_address' && tags.has('house_number_changed') && only('house_number_changed')) {
          assert.notEqual(a1, upper(v.address1));
          assert.equal(a1.replace(/^\d+ /, ''), upper(v.address1).replace(/^\d+ /, ''));
          bump('house_number_changed');
        }
        if (pattern === 'name_address' && tags.has('house_number_missing') && only('house_number_missing')) {
          assert.equal(a1, upper(v.address1).replace(/^\d+ /, ''));
          bump('house_number_missing');
        }
        if (pattern === 'name_address' && tags.has('street_split_join') && only('street_split_join')) {
          assert.notEqual(a1, upper(v.address1));
          assert.equal(a1.replaceAll(' ', ''), upper(v.address1).replaceAll(' ', ''));
          bump('street_split_join');
        }
        if (pattern === 'name_address' && tags.has('unit_other_line') && only('unit_other_line')) {
          assert.notEqual(upper(cells.address2), upper(v.address2));
          const line = (x: string | undefined, y: string | undefined) => `${upper(x)} ${upper(y)}`.trim();
          assert.equal(line(cells.address1, cells.address2), line(v.address1, v.address2));
          bump('unit_other_line');
        }
        if (pattern === 'name_address' && tags.has('house_number_glued') && only('house_number_glued')) {
          assert.notEqual(a1, upper(v.address1));
          assert.match(a1, /^\d+[A-Z]{3}/);
          // The matcher's parser reads it as the voter file's address.
          const canonical = (line: string) => canonicalAddress(parseAddress(line));
          assert.equal(canonical(a1), canonical(upper(v.address1)));
          bump('house_number_glued');
        }
        const namesAsIs = !has(
          'full_name',
          'typo_last',
          'married_surname',
          'names_swapped',
          'first_name_combined',
        );
        if (tags.has('name_scanned') && namesAsIs && (cells.last_name ?? '') !== '') {
          assert.notEqual(upper(cells.last_name), upper(v.last_name));
          // As the matcher reads a scan: a digit in a word as its letter, then RN as M and VV as W.
          const scanned = (name: string) => cleanName(name).replaceAll('RN', 'M').replaceAll('VV', 'W');
          assert.equal(scanned(cells.last_name!), scanned(v.last_name!));
          bump('name_scanned');
        }
        if (tags.has('typo_city') && !has('one_line_address', ...movers) && (cells.city ?? '') !== '') {
          assert.notEqual(upper(cells.city), upper(v.city));
          assert.ok(Math.abs(upper(cells.city).length - upper(v.city).length) <= 1);
          bump('typo_city');
        }
        if (tags.has('zip_transposed') && !has('one_line_address', ...movers) && (cells.zip ?? '') !== '') {
          assert.notEqual(cells.zip, v.zip);
          assert.equal([...cells.zip!].sort().join(''), [...v.zip!].sort().join(''));
          bump('zip_transposed');
        }
        if (pattern === 'name_dob' && tags.has('dob_invalid') && !tags.has('age_instead_of_dob')) {
          assert.equal(parseDob(cells.dob!), null, cells.dob);
          assert.equal(cells.dob!.slice(0, 4), v.dob!.slice(0, 4));
          bump('dob_invalid');
        }
        if (pattern === 'name_dob' && tags.has('dob_year_only') && !tags.has('age_instead_of_dob')) {
          assert.equal(cells.dob, v.dob!.slice(0, 4));
          bump('dob_year_only');
        }
        if (pattern === 'name_dob' && tags.has('age_instead_of_dob') && !has('dob_swap', 'dob_year')) {
          const off = Math.abs(Number(cells.age) - ageOn(v.dob!, new Date(Date.UTC(2026, 0, 1))));
          assert.equal(off, tags.has('age_off_by_one') ? 1 : 0);
          if (tags.has('age_off_by_one')) bump('age_off_by_one');
        }
        // Issue 36: other people's first names (the same person), other address layouts, short
        // moves, dates of birth on name_address rows, odd dates.
        const firstAsIs = !has('nickname', 'typo_first', 'names_swapped', 'full_name', 'nickname_aside');
        const f = upper(cells.first_name);
        if (tags.has('first_replaced') && firstAsIs && f !== '') {
          assert.ok(clearlyDifferentNames(f, v.first_name!), `${v.first_name} → ${f}`);
          if (v.middle_name!.length >= 2) assert.ok(clearlyDifferentNames(f, v.middle_name!));
          if (v.gender !== 'U') assert.ok(givenNames[v.gender!]!.has(f), `${f} is no ${v.gender} given name`);
          if (f.charAt(0) !== upper(v.first_name).charAt(0)) bump('first_replaced_initial');
          bump('first_replaced');
        }
        if (tags.has('goes_by_middle_no_middle') && firstAsIs && f !== '') {
          assert.equal(v.middle_name, '');
          assert.equal(cells.middle_name ?? '', '');
          assert.ok(clearlyDifferentNames(f, v.first_name!), `${v.first_name} → ${f}`);
          if (v.gender !== 'U')
            assert.ok(middleNames[v.gender!]!.has(f), `${f} is no ${v.gender} middle name`);
          bump('goes_by_middle_no_middle');
        }
        const addressNotMoved = !has('one_line_address', 'typo_street', ...movers, ...streetTags);
        if (pattern === 'name_address' && tags.has('address_lines_swapped') && addressNotMoved) {
          const line = (x: string | undefined, y: string | undefined) => `${upper(x)} ${upper(y)}`.trim();
          if (v.address2 !== '' && a1 === upper(v.address2)) {
            // The unit above the street line.
            assert.equal(upper(cells.address2), upper(v.address1));
            bump('address_lines_swapped_unit');
          } else {
            // A property's name above the street line (with its unit).
            assert.match(a1, /^[A-Z' ]+$/);
            assert.equal(upper(cells.address2), line(v.address1, v.address2));
            bump('address_lines_swapped_property');
          }
          bump('address_lines_swapped');
        }
        const moved = (kind: string) =>
          tags.has(kind) && !has('one_line_address', 'typo_street', 'typo_city', 'zip_transposed');
        if (pattern === 'name_address' && moved('mover_in_zip')) {
          assert.equal(cells.zip, v.zip);
          if (!has(...streetTags, 'address_lines_swapped')) {
            assert.notEqual(streetWithoutUnit(a1), streetWithoutUnit(v.address1!));
          }
          if (!has(...streetTags, 'address_lines_swapped')) {
            assert.ok(streetAddresses.has(`${cells.zip}|${a1}`), `another voter's address: ${a1}`);
          }
          bump('mover_in_zip');
        }
        if ((pattern === 'name_address' || pattern === 'name_zip') && moved('mover_in_city')) {
          if (cells.zip !== '') {
            assert.notEqual(cells.zip, v.zip);
            assert.ok(zipsOfCity.get(`${v.city}|${v.state}`)!.has(cells.zip!), 'a ZIP of the same city');
          }
          if (cells.city !== '') assert.equal(upper(cells.city), upper(v.city));
          if (pattern === 'name_address' && !has(...streetTags, 'address_lines_swapped')) {
            assert.ok(streetAddresses.has(`${cells.zip}|${a1}`), `another voter's address: ${a1}`);
          }
          bump('mover_in_city');
        }
        if (
          pattern === 'latlong_name' &&
          has('mover_in_zip', 'mover_in_city') &&
          !tags.has('latlong_jitter')
        ) {
          assert.ok(coordinates.has(`${cells.latitude}|${cells.longitude}`), "another voter's coordinates");
          assert.notEqual(`${cells.latitude}|${cells.longitude}`, `${v.latitude}|${v.longitude}`);
          bump('mover_coordinates');
        }
        if (pattern === 'name_address') {
          if (!tags.has('with_dob')) assert.equal(cells.dob, '');
          else if (!has('dob_placeholder', 'voter_dob_placeholder')) {
            assert.equal(cells.dob, v.dob);
            bump('with_dob');
          }
        }
        const dobGiven = pattern === 'name_dob' || tags.has('with_dob');
        if (dobGiven && tags.has('dob_placeholder')) {
          assert.ok(['1900-01-01', '01/01/1900'].includes(cells.dob!), cells.dob);
          assert.ok(parseDob(v.dob!) !== null && v.dob! > '19101231', v.dob);
          bump('dob_placeholder');
        }
        if (dobGiven && tags.has('voter_dob_placeholder')) {
          assert.equal(v.dob, '19000101');
          assert.ok(parseDob(cells.dob!) !== null && cells.dob! > '19101231', cells.dob);
          bump('voter_dob_placeholder');
        }
        if (dobGiven && tags.has('dob_out_of_range')) {
          assert.equal(cells.dob, v.dob);
          assert.match(cells.dob!, /^19(0\d|10)\d{4}$/);
          assert.notEqual(cells.dob, '19000101');
          bump('dob_out_of_range');
        }
        if (dobGiven && v.dob === '19000101') assert.ok(tags.has('voter_dob_placeholder'));
        if (dobGiven && /^19(0\d|10)/.test(v.dob!) && v.dob !== '19000101') {
          assert.ok(tags.has('dob_out_of_range'));
        }
        if (pattern === 'phone') {
          const digits = phoneDigits(cells.phone!);
          const own = [v.landline_phone, v.wireless_phone, v.voip_phone];
          if (tags.has('stale_phone')) {
            assert.ok(!voterPhones.has(digits));
            bump('stale_phone');
          } else assert.ok(own.includes(digits));
          if (tags.has('phone_format')) {
            assert.match(cells.phone!, /\D/);
            bump('phone_format');
          } else assert.match(cells.phone!, /^\d{10}$/);
        }
        if (pattern === 'email') {
          if (tags.has('email_domain_typo')) {
            // Another domain than the voter's, one the matcher reads back as the voter's provider.
            const domain = (e: string) => e.slice(e.lastIndexOf('@') + 1).toLowerCase();
            assert.notEqual(domain(cells.email!), domain(v.email!));
            // (aol.com's own name is too short to correct: aoll.com stays, aol.con does not.)
            const own = domain(v.email!);
            const label = own === 'aol.com' && !domain(cells.email!).startsWith('aol.');
            assert.equal(providerOfTypo(domain(cells.email!)), label ? null : own, cells.email);
            bump('email_domain_typo');
          } else assert.equal(emailKey(cells.email!), emailKey(v.email!));
          if (tags.size > 0) bump('email_variants');
        }
        if (pattern === 'latlong_name' && tags.has('latlong_jitter') && !has(...movers)) {
          const d = distanceMeters(
            Number(v.latitude),
            Number(v.longitude),
            Number(cells.latitude),
            Number(cells.longitude),
          );
          assert.ok(d >= 9 && d <= 501, `jitter ${d} m`);
          bump('latlong_jitter');
        }
        if (pattern === 'ids') {
          const found =
            (cells.voterbase_id !== '' && cells.voterbase_id === v.voterbase_id) ||
            (cells.voter_id !== '' &&
              cells.voter_id!.replace(/^0+/, '') === v.voter_id!.replace(/^0+/, '')) ||
            (cells.smartvan_id !== '' && cells.smartvan_id === v.smartvan_id) ||
            (cells.exact_track !== '' && cells.exact_track === v.exact_track);
          assert.ok(found);
          bump('ids');
        }
      }
    }
    for (const tag of [
      'first_name_combined',
      'nickname',
      'full_name',
      'case_lower',
      'one_line_address',
      'mover',
      'none',
      'middle_initial',
      'dob_swap',
      'dob_year',
      'age_instead_of_dob',
      'stale_phone',
      'phone_format',
      'email_variants',
      'latlong_jitter',
      'ids',
      'names_swapped',
      'middle_as_first',
      'house_number_changed',
      'house_number_missing',
      'street_split_join',
      'unit_other_line',
      'typo_city',
      'zip_transposed',
      'dob_invalid',
      'dob_year_only',
      'age_off_by_one',
      'one_line_no_commas',
      'first_middle_joined',
      'dob_format',
      'email_domain_typo',
      'couple_in_full_name',
      'nickname_aside',
      'house_number_glued',
      'name_scanned',
      'first_replaced',
      'goes_by_middle_no_middle',
      'address_lines_swapped',
      'address_lines_swapped_unit',
      'address_lines_swapped_property',
      'mover_in_zip',
      'mover_in_city',
      'mover_coordinates',
      'with_dob',
      'dob_placeholder',
      'voter_dob_placeholder',
      'dob_out_of_range',
    ]) {
      assert.ok((checked.get(tag) ?? 0) >= 5, `${tag} checked only ${checked.get(tag) ?? 0} times`);
    }
    // Another first letter is preferred for a replaced first name.
    assert.ok(checked.get('first_replaced_initial')! >= 0.9 * checked.get('first_replaced')!);
  });

  it('odd dates of birth and the placeholder are on member and non-member rows alike', async () => {
    const r = await run(VOTERS, 6000, 0.5, 'name_dob', 9);
    const count = (tag: string, member: boolean) =>
      r.truth.filter((t) => tagsOf(t).has(tag) && (t.voterbase_id !== '') === member).length;
    for (const tag of ['dob_out_of_range', 'dob_placeholder']) {
      assert.ok(count(tag, true) >= 3, `${tag}: ${count(tag, true)} member rows`);
      assert.ok(count(tag, false) >= 3, `${tag}: ${count(tag, false)} non-member rows`);
    }
    for (const { cells, truth, tags } of joined(r)) {
      if (truth.voterbase_id !== '' || !tags.has('dob_out_of_range')) continue;
      assert.match(cells.dob!, /^19(0\d|10)\d{4}$/);
      assert.ok(!votersByNameDob.has(`${cells.first_name}|${cells.last_name}|${cells.dob}`));
    }
  });

  it('near-twins share first name, last name and city (else state) with a real voter, never its ZIP, and are different people', () => {
    const nameChanging = [
      'nickname',
      'typo_first',
      'typo_last',
      'married_surname',
      'full_name',
      'mover',
      'names_swapped',
      'middle_as_first',
      'first_middle_joined',
      'nickname_aside',
      'name_scanned',
      'typo_city',
      'zip_transposed',
      'one_line_no_commas',
      'first_replaced',
      'goes_by_middle_no_middle',
      'mover_in_city',
      'mover_in_zip',
    ];
    let checked = 0;
    let sameCity = 0;
    for (const [pattern, r] of runs) {
      for (const { cells, truth, tags } of joined(r)) {
        if (!tags.has('near_twin')) continue;
        assert.equal(truth.voterbase_id, '');
        const sub = truth.pattern;
        if (sub === 'phone') assert.ok(!voterPhones.has(phoneDigits(cells.phone!)));
        if (sub === 'email') assert.ok(!voterEmails.has(emailKey(cells.email!)));
        if (sub === 'ids') {
          const keys = [
            cells.voterbase_id!,
            `${cells.state}|${cells.voter_id!.replace(/^0+/, '')}`,
            `${cells.state}|${cells.smartvan_id}`,
            cells.exact_track!,
          ];
          assert.ok(!keys.some((k) => voterIds.has(k)), `${pattern}: near-twin id exists in the file`);
        }
        if (sub !== 'name_address' || nameChanging.some((t) => tags.has(t))) continue;
        const first = cells.first_name!.toUpperCase();
        const last = cells.last_name!.toUpperCase();
        const city = tags.has('one_line_address')
          ? /, (.+) [A-Z]{2} \d{5}$/.exec(cells.address1!)![1]!.toUpperCase()
          : cells.city!.toUpperCase();
        const zip = tags.has('one_line_address') ? /(\d{5})$/.exec(cells.address1!)![1]! : cells.zip!;
        const namesakes = votersByNameState.get(
          `${first}|${last}|${cells.state || /, .+ ([A-Z]{2}) \d{5}$/.exec(cells.address1!)![1]}`,
        );
        assert.ok(namesakes !== undefined, `${first} ${last}: no namesake in the state`);
        if (votersByNameCity.has(`${first}|${last}|${city}`)) sameCity++;
        // A one-ZIP city's twin lives elsewhere in the state: no twin repeats its voter's ZIP.
        assert.ok(
          namesakes.some((n) => n.zip !== zip),
          `${first} ${last}: every namesake has ZIP ${zip}`,
        );
        checked++;
      }
    }
    assert.ok(checked >= 50, `only ${checked} near-twins checked`);
    assert.ok(sameCity / checked > 0.5, `only ${sameCity} of ${checked} near-twins share their voter's city`);
    const dob = runs.get('name_dob')!;
    for (const { cells, tags } of joined(dob)) {
      if (tags.has('near_twin') && cells.dob !== '' && cells.first_name !== '') {
        assert.ok(!votersByNameDob.has(`${cells.first_name}|${cells.last_name}|${cells.dob}`));
      }
    }
  });

  it('precision traps are relatives of a real voter that the row tells apart, and not in the file', () => {
    const voters = [...voterById.values()];
    const byLastDob = new Map<string, Row[]>();
    const byName = new Map<string, Row[]>();
    const byEmail = new Map<string, Row>();
    for (const v of voters) {
      const lastDob = `${v.last_name}|${v.dob}`;
      byLastDob.set(lastDob, [...(byLastDob.get(lastDob) ?? []), v]);
      const name = `${v.first_name}|${v.last_name}`;
      byName.set(name, [...(byName.get(name) ?? []), v]);
      if (v.email !== '') byEmail.set(emailKey(v.email!), v);
    }
    const checked = new Map<string, number>();
    for (const [, r] of runs) {
      for (const { cells, truth, tags } of joined(r)) {
        const trap = [...tags].find((tag) => tag.startsWith('trap_'));
        if (trap === undefined) continue;
        assert.equal(truth.voterbase_id, '', `${trap} is a non-member`);
        const clean = ![
          'nickname',
          'typo_first',
          'typo_last',
          'married_surname',
          'full_name',
          'names_swapped',
          'middle_as_first',
          'first_middle_joined',
          'nickname_aside',
          'name_scanned',
          'case_lower',
          'case_title',
          'dob_swap',
          'dob_year',
          'dob_invalid',
          'dob_year_only',
          'dob_format',
          'age_instead_of_dob',
          'dob_missing',
        ].some((t) => tags.has(t));
        if (truth.pattern === 'name_dob' && clean) {
          assert.ok(!votersByNameDob.has(`${cells.first_name}|${cells.last_name}|${cells.dob}`));
          if (trap === 'trap_jr_sr') {
            const namesakes = byName.get(`${cells.first_name}|${cells.last_name}`) ?? [];
            const gap = (v: Row) => Math.abs(Number(v.dob!.slice(0, 4)) - Number(cells.dob!.slice(0, 4)));
            assert.ok(
              namesakes.some((v) => gap(v) >= 20 && gap(v) <= 35),
              'a father or son in the file',
            );
          }
          if (trap === 'trap_twin') {
            const siblings = byLastDob.get(`${cells.last_name}|${cells.dob}`) ?? [];
            assert.ok(
              siblings.some((v) => clearlyDifferentNames(v.first_name!, cells.first_name!)),
              'a twin',
            );
          }
          checked.set(trap, (checked.get(trap) ?? 0) + 1);
        }
        if (trap === 'trap_spouse') {
          assert.equal(truth.pattern, 'email');
          assert.notEqual(cells.first_name, '');
          const voter = byEmail.get(
            emailKey(tags.has('email_domain_typo') ? withProvider(cells.email!) : cells.email!),
          );
          // (A mistyped aol.com name, aoll.com, is read as written: no voter has it.)
          if (voter === undefined && tags.has('email_domain_typo')) continue;
          assert.ok(voter !== undefined, "the spouse gives a voter's e-mail");
          if (!['nickname', 'typo_first', 'case_lower', 'case_title'].some((t) => tags.has(t))) {
            assert.ok(clearlyDifferentNames(voter.first_name!, cells.first_name!));
          }
          checked.set(trap, (checked.get(trap) ?? 0) + 1);
        }
      }
    }
    for (const trap of ['trap_jr_sr', 'trap_twin', 'trap_spouse']) {
      assert.ok((checked.get(trap) ?? 0) >= 5, `${trap} checked only ${checked.get(trap) ?? 0} times`);
    }
  });

  it('handles matchRate 0 and 1', async () => {
    const voters = voterCsv(2000, 3);
    const none = await run(voters, 300, 0, 'name_zip');
    assert.equal(none.truth.filter((t) => t.voterbase_id !== '').length, 0);
    assert.equal(none.report.nearTwins, 150);
    const all = await run(voters, 300, 1, 'email');
    assert.equal(all.truth.filter((t) => t.voterbase_id !== '').length, 300);
    assert.equal(all.report.nonMembers, 0);
  });

  it('rejects bad options with clear RangeErrors, before writing anything', async () => {
    const voters = voterCsv(100, 3);
    const base = { rows: 10, matchRate: 0.5, pattern: 'name_zip' as Pattern, seed: 1 };
    const attempt = async (overrides: Record<string, unknown>, voterBytes = voters): Promise<Sink> => {
      const out = new Sink();
      await assert.rejects(
        generateContactList({
          ...base,
          ...overrides,
          voters: bytes(voterBytes),
          out,
          truth: new Sink(),
        } as never),
        RangeError,
      );
      return out;
    };
    await assert.rejects(
      generateContactList({ ...base, rows: 0, voters: bytes(voters), out: new Sink(), truth: new Sink() }),
      /rows must be an integer from 1 to/,
    );
    await attempt({ rows: 2.5 });
    await attempt({ matchRate: -0.1 });
    await attempt({ matchRate: 1.01 });
    await attempt({ matchRate: Number.NaN });
    await assert.rejects(
      generateContactList({
        ...base,
        pattern: 'names' as Pattern,
        voters: bytes(voters),
        out: new Sink(),
        truth: new Sink(),
      }),
      /pattern must be one of name_address, name_dob, name_zip, email, phone, ids, latlong_name, mixed/,
    );
    await attempt({ seed: 0.5 });
    await attempt({ asOf: new Date('nope') });
    const out = new Sink();
    await assert.rejects(
      generateContactList({ ...base, rows: 1000, voters: bytes(voters), out, truth: new Sink() }),
      /rows × matchRate = 500 members needed, but the voter file has only 100 voters/,
    );
    assert.equal(out.chunks.length, 0);
    await attempt({}, Buffer.from('id,first_name\n1,ANN\n'));
    await assert.rejects(
      generateContactList({ ...base, voters: bytes(Buffer.from('')), out: new Sink(), truth: new Sink() }),
      /voter file is empty/,
    );
  });

  it('has a nickname table of at least 150 pairs', () => {
    assert.ok(NICKNAME_PAIR_COUNT >= 150);
    assert.ok(NICKNAMES_BY_FORMAL.get('ROBERT')!.includes('BOB'));
    assert.ok(NICKNAMES_BY_FORMAL.get('MARGARET')!.includes('PEGGY'));
    assert.ok(FORMALS_BY_NICKNAME.get('LIZ')!.includes('ELIZABETH'));
  });
});

describe('generateContactListFromFile', () => {
  let dir = '';
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'listmatch-lists-'));
    await writeFile(join(dir, 'voters.csv'), voterCsv(1000, 2));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes list and truth files', async () => {
    const report = await generateContactListFromFile({
      from: join(dir, 'voters.csv'),
      out: join(dir, 'list.csv'),
      truth: join(dir, 'truth.csv'),
      rows: 200,
      matchRate: 0.5,
      pattern: 'name_address',
      seed: 3,
    });
    assert.equal(report.rows, 200);
    const list = await readFile(join(dir, 'list.csv'), 'utf8');
    const truth = await readFile(join(dir, 'truth.csv'), 'utf8');
    assert.equal(list.split('\n').length, 202);
    assert.ok(truth.startsWith('matchback_id,voterbase_id,pattern,errors\n'));
  });

  it('creates no files when the voter file cannot support the list', async () => {
    await assert.rejects(
      generateContactListFromFile({
        from: join(dir, 'voters.csv'),
        out: join(dir, 'big.csv'),
        truth: join(dir, 'big-truth.csv'),
        rows: 5000,
        matchRate: 0.5,
        pattern: 'phone',
        seed: 3,
      }),
      /members needed/,
    );
    assert.ok(!existsSync(join(dir, 'big.csv')));
    assert.ok(!existsSync(join(dir, 'big-truth.csv')));
  });
});
