import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { STATES } from './places.ts';
import {
  generateVoterRows,
  SYNTHETIC_STATES,
  SYNTHETIC_VOTER_COLUMNS,
  VOTER_COLUMNS,
  VOTER_DOB_OUT_OF_RANGE_SHARE,
  VOTER_DOB_PLACEHOLDER,
  VOTER_DOB_PLACEHOLDER_SHARE,
  writeVotersCsv,
} from './voter-generator.ts';

type Column = (typeof SYNTHETIC_VOTER_COLUMNS)[number];
const col = Object.fromEntries(SYNTHETIC_VOTER_COLUMNS.map((name, i) => [name, i])) as Record<Column, number>;
const N = 200_000;
const ROWS = [...generateVoterRows({ rows: N, seed: 7, extraColumns: true })];

function v(row: readonly string[], name: Column): string {
  return row[col[name]]!;
}

function share(predicate: (row: readonly string[]) => boolean, rows: readonly string[][] = ROWS): number {
  let hits = 0;
  for (const row of rows) if (predicate(row)) hits++;
  return hits / rows.length;
}

function countBy(
  key: (row: readonly string[]) => string,
  rows: readonly string[][] = ROWS,
): Map<string, number> {
  const counts = new Map<string, number>();
  for (const row of rows) {
    const k = key(row);
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return counts;
}

class Sink extends Writable {
  readonly hash = createHash('sha256');
  bytes = 0;
  text = '';
  private readonly keepText: boolean;
  constructor(keepText = false, highWaterMark = 16_384) {
    super({ highWaterMark });
    this.keepText = keepText;
  }
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.hash.update(chunk);
    this.bytes += chunk.length;
    if (this.keepText) this.text += chunk.toString('utf8');
    setImmediate(done);
  }
}

test('same seed gives a byte-identical CSV (sha256 of 50k rows, two runs); other seeds differ', async () => {
  const digest = async (seed: number) => {
    const sink = new Sink();
    const result = await writeVotersCsv({ rows: 50_000, seed, out: sink });
    assert.equal(result.rows, 50_000);
    assert.equal(result.bytes, sink.bytes);
    return sink.hash.digest('hex');
  };
  const first = await digest(123);
  assert.equal(await digest(123), first);
  assert.notEqual(await digest(124), first);
});

test('generateVoterRows is deterministic and a longer run extends a shorter one', () => {
  const again = [...generateVoterRows({ rows: 20_000, seed: 7, extraColumns: true })];
  assert.deepEqual(again, ROWS.slice(0, 20_000));
  const plain = [...generateVoterRows({ rows: 1000, seed: 7 })];
  assert.deepEqual(
    plain,
    ROWS.slice(0, 1000).map((row) => row.slice(0, VOTER_COLUMNS.length)),
  );
  for (const rows of [0, 1, 2, 3, 17]) assert.equal([...generateVoterRows({ rows, seed: 1 })].length, rows);
});

test('writeVotersCsv writes the header, LF rows and the extra columns; extraColumns false gives VOTER_COLUMNS', async () => {
  const sink = new Sink(true);
  await writeVotersCsv({ rows: 500, seed: 7, out: sink });
  const lines = sink.text.split('\n');
  assert.equal(lines[0], SYNTHETIC_VOTER_COLUMNS.join(','));
  assert.equal(lines.length, 502);
  assert.equal(lines[501], '');
  assert.deepEqual(
    lines.slice(1, 501),
    ROWS.slice(0, 500).map((row) => row.join(',')),
  );
  assert.ok(!sink.text.includes('\r'));

  const narrow = new Sink(true, 1);
  await writeVotersCsv({ rows: 3000, seed: 7, out: narrow, extraColumns: false });
  const narrowLines = narrow.text.trimEnd().split('\n');
  assert.equal(narrowLines[0], VOTER_COLUMNS.join(','));
  assert.equal(narrowLines.length, 3001);
  assert.equal(narrowLines[1]!.split(',').length, VOTER_COLUMNS.length);

  const failing = new Writable({
    write(_chunk, _encoding, done) {
      done(new Error('disk full'));
    },
  });
  failing.on('error', () => {});
  await assert.rejects(writeVotersCsv({ rows: 100_000, seed: 1, out: failing }), /disk full/);
});

test('every row has one value per column and none needs CSV quoting', () => {
  for (const row of ROWS) {
    assert.equal(row.length, SYNTHETIC_VOTER_COLUMNS.length);
    for (const cell of row) {
      assert.doesNotMatch(cell, /[",\r\n]/);
      assert.equal(cell, cell.trim());
    }
  }
});

test('ids have the documented formats and are unique (voter_id and smartvan_id within a state)', () => {
  const digits = new Map(STATES.map((s) => [s.code, s.voterIdDigits]));
  for (const row of ROWS) {
    const state = v(row, 'state');
    assert.match(v(row, 'voterbase_id'), new RegExp(`^${state}-\\d{9}$`));
    assert.match(v(row, 'voter_id'), new RegExp(`^0\\d{${digits.get(state)! - 1}}$`));
    assert.match(v(row, 'smartvan_id'), /^[1-9]\d{7,8}$/);
    assert.match(v(row, 'exact_track'), /^ET[0-9A-Z]{10}$/);
    assert.match(v(row, 'household_id'), /^HH\d{10}$/);
  }
  const unique = (key: (row: readonly string[]) => string) => countBy(key).size;
  assert.equal(
    unique((r) => v(r, 'voterbase_id')),
    N,
  );
  assert.equal(
    unique((r) => v(r, 'exact_track')),
    N,
  );
  assert.equal(
    unique((r) => `${v(r, 'state')}|${v(r, 'voter_id')}`),
    N,
  );
  assert.equal(
    unique((r) => `${v(r, 'state')}|${Number(v(r, 'voter_id'))}`),
    N,
  );
  assert.equal(
    unique((r) => `${v(r, 'state')}|${v(r, 'smartvan_id')}`),
    N,
  );
});

test('surnames have a census-like heavy head and a long tail that keeps growing with N', () => {
  const counts = countBy((r) => v(r, 'last_name'));
  const sorted = [...counts.values()].sort((a, b) => b - a);
  const top = sorted[0]! / N;
  const top100 = sorted.slice(0, 100).reduce((sum, c) => sum + c, 0) / N;
  assert.ok(top >= 0.005 && top <= 0.02, `top surname share ${top}`);
  assert.ok(top100 >= 0.12 && top100 <= 0.3, `top-100 share ${top100}`);
  const singletons = [...counts.values()].filter((c) => c === 1).length;
  assert.ok(singletons > counts.size * 0.2, `surnames seen once: ${singletons} of ${counts.size}`);
  const distinct = (n: number) => new Set(ROWS.slice(0, n).map((r) => v(r, 'last_name'))).size;
  const [d25, d50, d100, d200] = [25_000, 50_000, 100_000, 200_000].map(distinct) as [
    number,
    number,
    number,
    number,
  ];
  assert.ok(
    d50 > d25 * 1.3 && d100 > d50 * 1.3 && d200 > d100 * 1.3,
    `distinct ${d25} ${d50} ${d100} ${d200}`,
  );
  assert.equal([...counts.entries()].sort((a, b) => b[1] - a[1])[0]![0], 'SMITH');
});

test('names: hyphenated, multi-word, apostrophe and non-ASCII names, middle names and initials, suffixes', () => {
  const last = (re: RegExp) => share((r) => re.test(v(r, 'last_name')));
  assert.ok(last(/^[A-Z']+-[A-Z']+$/) > 0.005, 'hyphenated surnames');
  assert.ok(last(/ /) > 0.002, 'multi-word surnames');
  assert.ok(last(/'/) > 0.002, "apostrophe surnames (O'BRIEN)");
  assert.ok(ROWS.some((r) => v(r, 'last_name') === 'DE LA CRUZ'));
  const nonAscii = share((r) =>
    /[^\x20-\x7e]/.test(v(r, 'first_name') + v(r, 'middle_name') + v(r, 'last_name')),
  );
  assert.ok(nonAscii > 0.002 && nonAscii < 0.05, `non-ASCII names ${nonAscii}`);
  const middle = share((r) => v(r, 'middle_name').length > 1);
  const initial = share((r) => v(r, 'middle_name').length === 1);
  assert.ok(middle > 0.45 && middle < 0.65, `full middle names ${middle}`);
  assert.ok(initial > 0.1 && initial < 0.2, `middle initials ${initial}`);
  const suffixes = countBy((r) => v(r, 'name_suffix'));
  for (const suffix of ['JR', 'SR', 'II', 'III']) assert.ok((suffixes.get(suffix) ?? 0) > 50, suffix);
  assert.deepEqual(new Set(suffixes.keys()), new Set(['', 'JR', 'SR', 'II', 'III']));
  for (const row of ROWS) {
    for (const name of ['first_name', 'middle_name', 'last_name'] as const) {
      assert.equal(v(row, name), v(row, name).toUpperCase());
    }
  }
});

test('first names follow sex and birth decade', () => {
  const born = (row: readonly string[]) => Number(v(row, 'dob').slice(0, 4));
  const shareOf = (name: string, from: number, to: number, sex: string) => {
    const cohort = ROWS.filter((r) => born(r) >= from && born(r) < to && v(r, 'gender') === sex);
    return cohort.filter((r) => v(r, 'first_name') === name).length / cohort.length;
  };
  assert.ok(shareOf('MARY', 1935, 1955, 'F') > 0.03);
  assert.ok(shareOf('MARY', 1995, 2008, 'F') < 0.01);
  assert.ok(shareOf('JESSICA', 1980, 1995, 'F') > 0.02);
  assert.ok(shareOf('JESSICA', 1930, 1950, 'F') < 0.005);
  assert.ok(shareOf('JACOB', 1995, 2008, 'M') > 0.01);
  assert.ok(shareOf('MICHAEL', 1960, 1990, 'M') > 0.025);
  const maleNames = new Set(ROWS.filter((r) => v(r, 'gender') === 'M').map((r) => v(r, 'first_name')));
  assert.ok(!maleNames.has('JENNIFER') && !maleNames.has('MARY'));
  assert.ok(share((r) => v(r, 'gender') === 'U') > 0.005);
});

test('households: sizes, shared surnames, couples with different surnames, JR/SR pairs, twins', () => {
  const households = new Map<string, string[][]>();
  for (const row of ROWS) {
    const id = v(row, 'household_id');
    let members = households.get(id);
    if (members === undefined) {
      members = [];
      households.set(id, members);
    }
    members.push(row);
  }
  // Everyone in a household shares the address and coordinates.
  for (const members of households.values()) {
    const key = (r: readonly string[]) =>
      ['address1', 'address2', 'city', 'zip', 'latitude', 'longitude']
        .map((c) => v(r, c as Column))
        .join('|');
    for (const m of members) assert.equal(key(m), key(members[0]!));
  }
  const perAddress = countBy((r) => ['address1', 'address2', 'zip'].map((c) => v(r, c as Column)).join('|'));
  const sizes = [...perAddress.values()];
  const mean = N / sizes.length;
  const singles = sizes.filter((s) => s === 1).length / sizes.length;
  const large = sizes.filter((s) => s >= 4).length / sizes.length;
  assert.ok(mean >= 1.8 && mean <= 2.8, `people per address ${mean}`);
  assert.ok(singles > 0.25 && singles < 0.5, `single-person addresses ${singles}`);
  assert.ok(large > 0.03 && large < 0.15, `addresses with 4+ people ${large}`);

  let sameSurnamePairs = 0;
  let differentSurnameCouples = 0;
  let juniorSenior = 0;
  let twins = 0;
  for (const members of households.values()) {
    if (members.length < 2) continue;
    const [a, b] = members as [string[], string[]];
    if (v(a, 'last_name') === v(b, 'last_name')) sameSurnamePairs++;
    else if (
      v(a, 'gender') !== v(b, 'gender') &&
      Math.abs(Number(v(a, 'dob').slice(0, 4)) - Number(v(b, 'dob').slice(0, 4))) < 8
    ) {
      differentSurnameCouples++;
    }
    const sr = members.find((m) => v(m, 'name_suffix') === 'SR');
    if (
      sr &&
      members.some((m) => v(m, 'name_suffix') === 'JR' && v(m, 'first_name') === v(sr, 'first_name'))
    ) {
      juniorSenior++;
    }
    const dobs = countBy((m) => `${v(m, 'dob')}|${v(m, 'last_name')}`, members);
    if ([...dobs.entries()].some(([key, count]) => count >= 2 && key.split('|')[0]!.length === 8)) twins++;
  }
  const multi = [...households.values()].filter((m) => m.length >= 2).length;
  assert.ok(sameSurnamePairs > multi * 0.55, `same-surname households ${sameSurnamePairs} of ${multi}`);
  assert.ok(
    differentSurnameCouples > multi * 0.05,
    `couples with different surnames ${differentSurnameCouples}`,
  );
  assert.ok(juniorSenior > 100, `JR/SR pairs ${juniorSenior}`);
  assert.ok(twins > 50, `twins ${twins}`);
});

test('addresses: USPS suffixes and directionals, units, PO boxes, rural routes', () => {
  const address1 = ROWS.map((r) => v(r, 'address1'));
  for (const suffix of [
    'ST',
    'AVE',
    'RD',
    'BLVD',
    'LN',
    'DR',
    'CT',
    'PL',
    'WAY',
    'CIR',
    'TER',
    'PKWY',
    'HWY',
    'TRL',
  ]) {
    assert.ok(
      address1.some((a) => a.endsWith(` ${suffix}`)),
      suffix,
    );
  }
  for (const direction of ['N', 'S', 'E', 'W', 'NE', 'NW', 'SE', 'SW']) {
    assert.ok(
      address1.some((a) => new RegExp(`^\\d+ ${direction} `).test(a)),
      direction,
    );
  }
  const rate = (re: RegExp, values: readonly string[] = address1) =>
    values.filter((a) => re.test(a)).length / values.length;
  assert.ok(rate(/^PO BOX \d+$/) > 0.005, 'PO boxes');
  assert.ok(rate(/^RR \d BOX \d+$/) > 0.002, 'rural routes');
  assert.ok(rate(/ (COUNTY ROAD|STATE ROUTE|HIGHWAY|US HIGHWAY|FM) \d+$/) > 0.003, 'numbered roads');
  const address2 = ROWS.map((r) => v(r, 'address2'));
  assert.ok(rate(/^(APT|UNIT|#|LOT) /, address2) > 0.08, 'units');
  for (const value of address2) assert.match(value, /^((APT|UNIT|#|LOT) [0-9A-Z]+)?$/);
  for (const value of address1) assert.match(value, /^(\d+ [A-Z0-9 #]+|PO BOX \d+|RR \d BOX \d+)$/);
  assert.ok(
    address1.every((a) => !/^9\d{4} /.test(a)),
    'house numbers 90000+ are left for invented non-members',
  );
});

test('city, ZIP, coordinates and phone area codes agree with the state', () => {
  const places = new Map(
    STATES.flatMap((s) => s.places.map((p) => [`${s.code}|${p.name}`, { p, s }] as const)),
  );
  const wireless = new Set<string>();
  let duplicateMobiles = 0;
  for (const row of ROWS) {
    const entry = places.get(`${v(row, 'state')}|${v(row, 'city')}`);
    assert.ok(entry, `${v(row, 'state')} ${v(row, 'city')}`);
    const { p, s } = entry;
    const zip = Number(v(row, 'zip'));
    assert.match(v(row, 'zip'), /^\d{5}$/);
    assert.ok(zip >= p.zipStart && zip < p.zipStart + p.zipCount);
    assert.match(v(row, 'latitude'), /^-?\d+\.\d{6}$/);
    assert.ok(Math.abs(Number(v(row, 'latitude')) - p.latitude) < 1);
    const stateCodes = new Set(s.places.flatMap((q) => q.areaCodes));
    for (const phone of ['landline_phone', 'wireless_phone', 'voip_phone'] as const) {
      const value = v(row, phone);
      if (value === '') continue;
      assert.match(value, /^[2-9]\d{2}[2-9]\d{6}$/);
      assert.ok(stateCodes.has(Number(value.slice(0, 3))), value);
    }
    const mobile = v(row, 'wireless_phone');
    if (mobile !== '') {
      if (wireless.has(mobile)) duplicateMobiles++;
      wireless.add(mobile);
    }
  }
  assert.equal(duplicateMobiles, 0, 'mobile numbers are unique');
  const typed = (c: Column) => share((r) => v(r, c) !== '');
  assert.ok(typed('wireless_phone') > 0.5 && typed('wireless_phone') < 0.75);
  assert.ok(typed('landline_phone') > 0.08 && typed('landline_phone') < 0.35);
  assert.ok(typed('voip_phone') > 0.02 && typed('voip_phone') < 0.1);
});

test('e-mails: common provider patterns and domains, unique except when a household shares one', () => {
  const emails = ROWS.filter((r) => v(r, 'email') !== '');
  const rate = emails.length / N;
  assert.ok(rate > 0.45 && rate < 0.65, `e-mail rate ${rate}`);
  const domains = countBy((r) => v(r, 'email').split('@')[1]!, emails);
  for (const d of [
    'gmail.com',
    'yahoo.com',
    'outlook.com',
    'hotmail.com',
    'aol.com',
    'icloud.com',
    'comcast.net',
  ]) {
    assert.ok((domains.get(d) ?? 0) > 100, d);
  }
  assert.ok(domains.get('gmail.com')! / emails.length > 0.3);
  const pattern = (re: RegExp) =>
    emails.filter((r) => {
      const local = v(r, 'email').split('@')[0]!;
      const f = v(r, 'first_name')
        .normalize('NFD')
        .replace(/[^A-Z]/g, '')
        .toLowerCase();
      const l = v(r, 'last_name')
        .normalize('NFD')
        .replace(/[^A-Z]/g, '')
        .toLowerCase();
      return re.test(local.replace(f, 'F').replace(l, 'L'));
    }).length / emails.length;
  assert.ok(pattern(/^F\.L$/) > 0.1, 'first.last');
  assert.ok(pattern(/^FL\d{1,4}$/) > 0.08, 'firstlast##');
  assert.ok(pattern(/^[a-z]\.?L$/) > 0.05, 'f.last / flast');
  for (const e of emails) assert.match(v(e, 'email'), /^[a-z0-9._]+@[a-z]+\.(com|net)$/);
  const byEmail = new Map<string, string>();
  for (const r of emails) {
    const other = byEmail.get(v(r, 'email'));
    if (other !== undefined)
      assert.equal(other, v(r, 'household_id'), `${v(r, 'email')} reused outside a household`);
    byEmail.set(v(r, 'email'), v(r, 'household_id'));
  }
});

test('dob, party, registration status and vote history stay in their vocabularies', () => {
  let placeholders = 0;
  let outOfRange = 0;
  for (const row of ROWS) {
    const dob = v(row, 'dob');
    assert.match(dob, /^(19\d\d|200\d)(\d{4})?$/);
    if (dob.length === 8) {
      const date = new Date(
        Date.UTC(Number(dob.slice(0, 4)), Number(dob.slice(4, 6)) - 1, Number(dob.slice(6))),
      );
      assert.equal(date.toISOString().slice(0, 10).replaceAll('-', ''), dob);
      if (dob === VOTER_DOB_PLACEHOLDER) placeholders++;
      else if (dob <= '19101231') outOfRange++;
      else assert.ok(dob >= '19250102' && dob <= '20080101', dob);
    } else assert.ok(dob >= '1925', dob);
    assert.match(v(row, 'gender'), /^[FMU]$/);
    assert.match(v(row, 'party'), /^(DEM|REP|UNA|LIB)$/);
    assert.match(v(row, 'registration_status'), /^(ACTIVE|INACTIVE)$/);
    assert.match(v(row, 'vote_2024_general'), /^[YN]?$/);
    assert.match(v(row, 'vote_2022_general'), /^[YN]?$/);
    assert.match(v(row, 'area_type'), /^(URBAN|SUBURBAN|TOWN|RURAL)$/);
  }
  const yearOnly = share((r) => v(r, 'dob').length === 4);
  assert.ok(yearOnly > 0.01 && yearOnly < 0.03);
  // Odd dates: the placeholder and real-looking dates of 1900-1910, each within 4σ of its share.
  for (const [count, p] of [
    [placeholders, VOTER_DOB_PLACEHOLDER_SHARE],
    [outOfRange, VOTER_DOB_OUT_OF_RANGE_SHARE],
  ] as const) {
    const sigma = Math.sqrt((p * (1 - p)) / N);
    assert.ok(Math.abs(count / N - p) <= 4 * sigma, `${count} of ${N} rows, documented share ${p}`);
  }
});

test('urban cores are at least 100x denser than rural areas (voters per sq mi within 0.5 mi)', () => {
  const rows = [...generateVoterRows({ rows: 150_000, seed: 11, states: ['NC'], extraColumns: true })];
  const cell = 0.5 / 69; // about half a mile of latitude
  const grid = new Map<string, number[]>();
  const lat = rows.map((r) => Number(v(r, 'latitude')));
  const lon = rows.map((r) => Number(v(r, 'longitude')));
  rows.forEach((_, i) => {
    const key = `${Math.floor(lat[i]! / cell)}|${Math.floor(lon[i]! / cell)}`;
    let bucket = grid.get(key);
    if (bucket === undefined) {
      bucket = [];
      grid.set(key, bucket);
    }
    bucket.push(i);
  });
  const density = (i: number) => {
    const cosLat = Math.cos((lat[i]! * Math.PI) / 180);
    const cy = Math.floor(lat[i]! / cell);
    const cx = Math.floor(lon[i]! / cell);
    let neighbours = 0;
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -3; dx <= 3; dx++) {
        for (const j of grid.get(`${cy + dy}|${cx + dx}`) ?? []) {
          if (v(rows[j]!, 'household_id') === v(rows[i]!, 'household_id')) continue; // not the point's own home
          const miles = Math.hypot((lat[j]! - lat[i]!) * 69, (lon[j]! - lon[i]!) * 69 * cosLat);
          if (miles <= 0.5) neighbours++;
        }
      }
    }
    return neighbours / (Math.PI * 0.25);
  };
  const meanDensity = (area: string) => {
    // Homes only: a PO box is geocoded to its post office in the town centre.
    const points = rows.flatMap((r, i) =>
      v(r, 'area_type') === area && !v(r, 'address1').startsWith('PO BOX') ? [i] : [],
    );
    assert.ok(points.length > 500, `${area} voters: ${points.length}`);
    const sample = points.filter((_, k) => k % Math.ceil(points.length / 600) === 0);
    return sample.reduce((sum, i) => sum + density(i), 0) / sample.length;
  };
  const urban = meanDensity('URBAN');
  const suburban = meanDensity('SUBURBAN');
  const rural = meanDensity('RURAL');
  console.log(
    `density per sq mi: urban ${urban.toFixed(1)} suburban ${suburban.toFixed(1)} rural ${rural.toFixed(2)}`,
  );
  assert.ok(urban / rural >= 100, `urban ${urban.toFixed(1)} vs rural ${rural.toFixed(2)} per sq mi`);
  assert.ok(suburban < urban && suburban > rural, `suburban ${suburban.toFixed(1)}`);
});

test('the states filter is respected, case-insensitively', () => {
  const rows = [...generateVoterRows({ rows: 5000, seed: 3, states: ['nc', ' OH '] })];
  assert.deepEqual(new Set(rows.map((r) => r[1])), new Set(['NC', 'OH']));
  for (const row of rows) assert.ok(row[0]!.startsWith(`${row[1]}-`));
  assert.deepEqual(new Set(ROWS.map((r) => v(r, 'state'))), new Set(SYNTHETIC_STATES));
  assert.ok(SYNTHETIC_STATES.length >= 10);
});

test('bad options throw a RangeError naming the option, before the first row', () => {
  const cases: [Parameters<typeof generateVoterRows>[0], RegExp][] = [
    [{ rows: -1, seed: 1 }, /^rows must be/],
    [{ rows: 1.5, seed: 1 }, /^rows must be/],
    [{ rows: 50_000_001, seed: 1 }, /^rows must be/],
    [{ rows: Number.NaN, seed: 1 }, /^rows must be/],
    [{ rows: 1, seed: 0.5 }, /^seed must be/],
    [{ rows: 1, seed: 2 ** 60 }, /^seed must be/],
    [{ rows: 1, seed: 1, states: [] }, /^states must not be empty/],
    [{ rows: 1, seed: 1, states: ['NC', 'ZZ'] }, /^states: unknown state ZZ/],
  ];
  for (const [options, message] of cases) {
    assert.throws(
      () => generateVoterRows(options),
      (error: unknown) => error instanceof RangeError && message.test(error.message),
    );
  }
  assert.throws(() => writeVotersCsv({ rows: -5, seed: 1, out: new Sink() }), RangeError);
});
