/**
 * The North Carolina voter linkage benchmark (`../shared/data/ncvr-dev`, see its README), mapped
 * exactly as that README says:
 *
 * - `A.csv` is the voter file: `voterbase_id` = `NC-<row number>` (1-based data row of A),
 *   `state` = NC, `first_name`, `middle_name` = `middle_initial`, `last_name`, `dob` =
 *   `birth_year` (YYYY), `address1` = `house_number street_name`, and `ncid` kept as an
 *   appendable field. `voter_reg_num` is not imported.
 * - `B.csv` is the contact list, sent WITHOUT `ncid` and `voter_reg_num`: `matchback_id` = row
 *   number of B, `first_name`, `middle_name`, `last_name`, `address1`, `state` = NC, and `age` =
 *   completed years on {@link NCVR_AS_OF} (2026-01-01) of someone born in `birth_year`, which is
 *   `2025 − birth_year` (a birthday on 1 January is the only exception; the matcher maps an
 *   age back to the two birth years it allows). The pipeline runs with the same reference date.
 * - Truth: the B row's true voters are the A rows with the same `ncid` (none: a non-member).
 *   Pattern `name_address_age`; error tags name the fields that differ between the B row and its
 *   A row (`last_name_changed`, `first_name_changed`, `middle_initial_changed`,
 *   `birth_year_changed`, `address_changed`), empty for non-members.
 *
 * The files are read in place and never copied into the repository; the mapped CSVs go to the
 * run's scratch directory.
 */
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { readCsvTable } from '../../domain/csv/csv-reader.ts';
import { formatCsvRow } from '../../domain/csv/csv-writer.ts';
import type { ProbabilisticMatcherOptions } from '../../domain/matching/probabilistic-matcher.ts';
import type { TruthEntry } from './metrics.ts';
import {
  EVAL_MAX_ROW_BYTES,
  type EvaluationResult,
  type MatcherFactory,
  runEvaluation,
} from './run-evaluation.ts';

export const NCVR_AS_OF = new Date('2026-01-01T00:00:00Z');
export const NCVR_PATTERN = 'name_address_age';
export const NCVR_COLUMNS = [
  'voter_reg_num',
  'ncid',
  'last_name',
  'first_name',
  'birth_year',
  'middle_initial',
  'house_number',
  'street_name',
] as const;
type NcvrColumn = (typeof NCVR_COLUMNS)[number];
type NcvrRow = Record<NcvrColumn, string>;

export const NCVR_VOTER_HEADER = [
  'voterbase_id',
  'state',
  'first_name',
  'middle_name',
  'last_name',
  'dob',
  'address1',
  'ncid',
];
export const NCVR_LIST_HEADER = [
  'matchback_id',
  'first_name',
  'middle_name',
  'last_name',
  'address1',
  'state',
  'age',
];

/** Why the benchmark cannot run here (the directory or one of its files is missing), or null. */
export async function ncvrMissing(dir: string): Promise<string | null> {
  for (const file of ['A.csv', 'B.csv']) {
    try {
      await access(join(dir, file));
    } catch {
      return `the NC benchmark is not available: ${join(dir, file)} does not exist`;
    }
  }
  return null;
}

export interface PreparedNcvr {
  votersPath: string;
  listPath: string;
  truth: Map<string, TruthEntry>;
  voterRows: number;
  listRows: number;
  /** B rows with a true match in A. */
  members: number;
}

/** Maps A and B into a voter CSV and a list CSV under `outDir` and builds the truth. */
export async function prepareNcvr(dir: string, outDir: string): Promise<PreparedNcvr> {
  const votersPath = join(outDir, 'ncvr-voters.csv');
  const listPath = join(outDir, 'ncvr-list.csv');
  const byNcid = new Map<string, { voterbaseId: string; row: NcvrRow }[]>();
  let voterRows = 0;
  await writeCsv(votersPath, NCVR_VOTER_HEADER, async (write) => {
    for await (const row of readNcvr(join(dir, 'A.csv'))) {
      voterRows++;
      const voterbaseId = `NC-${voterRows}`;
      await write([
        voterbaseId,
        'NC',
        row.first_name,
        row.middle_initial,
        row.last_name,
        /^\d{4}$/.test(row.birth_year) ? row.birth_year : '',
        address1(row),
        row.ncid,
      ]);
      if (row.ncid === '') continue;
      const same = byNcid.get(row.ncid);
      if (same) same.push({ voterbaseId, row });
      else byNcid.set(row.ncid, [{ voterbaseId, row }]);
    }
  });

  const truth = new Map<string, TruthEntry>();
  let listRows = 0;
  let members = 0;
  await writeCsv(listPath, NCVR_LIST_HEADER, async (write) => {
    for await (const row of readNcvr(join(dir, 'B.csv'))) {
      listRows++;
      const matchbackId = String(listRows);
      await write([
        matchbackId,
        row.first_name,
        row.middle_initial,
        row.last_name,
        address1(row),
        'NC',
        ageOn(row.birth_year, NCVR_AS_OF),
      ]);
      const inA = row.ncid === '' ? [] : (byNcid.get(row.ncid) ?? []);
      if (inA.length > 0) members++;
      truth.set(matchbackId, {
        voterbaseIds: inA.map((a) => a.voterbaseId),
        pattern: NCVR_PATTERN,
        errors: inA.length > 0 ? differences(row, inA[0]!.row) : [],
      });
    }
  });
  return { votersPath, listPath, truth, voterRows, listRows, members };
}

/** `address1` = house number and street name, one space between, either may be empty. */
export const address1 = (row: Pick<NcvrRow, 'house_number' | 'street_name'>): string =>
  [row.house_number.trim(), row.street_name.trim()].filter((p) => p !== '').join(' ');

/**
 * Completed years on `asOf` of someone born in `birthYear`, assuming a birthday after 1 January
 * (asOf year − birth year − 1 when asOf is 1 January); '' for a missing or implausible year.
 */
export function ageOn(birthYear: string, asOf: Date): string {
  if (!/^\d{4}$/.test(birthYear.trim())) return '';
  const year = Number(birthYear.trim());
  const startOfYear = asOf.getUTCMonth() === 0 && asOf.getUTCDate() === 1;
  const age = asOf.getUTCFullYear() - year - (startOfYear ? 1 : 0);
  return age >= 0 && age <= 130 ? String(age) : '';
}

const norm = (value: string) => value.trim().toUpperCase();

/** Error tags: the identifier fields that differ between a B row and its true A row. */
function differences(b: NcvrRow, a: NcvrRow): string[] {
  const tags: string[] = [];
  if (norm(b.last_name) !== norm(a.last_name)) tags.push('last_name_changed');
  if (norm(b.first_name) !== norm(a.first_name)) tags.push('first_name_changed');
  if (norm(b.middle_initial) !== norm(a.middle_initial)) tags.push('middle_initial_changed');
  if (norm(b.birth_year) !== norm(a.birth_year)) tags.push('birth_year_changed');
  if (norm(address1(b)) !== norm(address1(a))) tags.push('address_changed');
  return tags;
}

async function* readNcvr(path: string): AsyncGenerator<NcvrRow> {
  let positions: number[] | null = null;
  for await (const event of readCsvTable(createReadStream(path, { highWaterMark: 1 << 20 }), {
    maxRowBytes: EVAL_MAX_ROW_BYTES,
    onWarning: () => {},
  })) {
    if (event.kind === 'header') {
      const names = event.header.map((h) => h.trim().toLowerCase());
      positions = NCVR_COLUMNS.map((c) => names.indexOf(c));
      const missing = NCVR_COLUMNS.filter((_, i) => positions![i]! < 0);
      if (missing.length > 0) throw new Error(`${path} has no ${missing.join(', ')} column`);
      continue;
    }
    for (const record of event.rows) {
      const row = {} as NcvrRow;
      NCVR_COLUMNS.forEach((c, i) => {
        row[c] = (record.fields[positions![i]!] ?? '').trim();
      });
      yield row;
    }
  }
}

async function writeCsv(
  path: string,
  header: readonly string[],
  body: (write: (fields: readonly string[]) => Promise<void>) => Promise<void>,
): Promise<void> {
  const out: Writable = createWriteStream(path);
  let buffer = formatCsvRow(header, []);
  const write = async (fields: readonly string[]) => {
    buffer += formatCsvRow(fields, []);
    if (buffer.length >= 1 << 16) {
      const ok = out.write(buffer);
      buffer = '';
      if (!ok) await once(out, 'drain');
    }
  };
  await body(write);
  out.end(buffer);
  await finished(out);
}

export interface NcvrEvaluationOptions {
  dir: string;
  maxMatches?: number;
  matcherFactory?: MatcherFactory;
  matcherOptions?: Partial<ProbabilisticMatcherOptions>;
  workDir?: string;
  /** Also copy the pipeline's result CSV here. */
  resultCopy?: string;
}

export type NcvrEvaluation =
  | { skipped: true; reason: string }
  | ({ skipped: false; voterRows: number; listRows: number; members: number } & EvaluationResult);

/** Maps the benchmark into a scratch directory and evaluates it; `skipped` when it is absent. */
export async function runNcvrEvaluation(options: NcvrEvaluationOptions): Promise<NcvrEvaluation> {
  const reason = await ncvrMissing(options.dir);
  if (reason !== null) return { skipped: true, reason };
  const scratch = await mkdtemp(join(options.workDir ?? tmpdir(), 'listmatch-ncvr-'));
  try {
    const prepared = await prepareNcvr(options.dir, scratch);
    const result = await runEvaluation({
      votersPath: prepared.votersPath,
      listPath: prepared.listPath,
      truth: prepared.truth,
      maxMatches: options.maxMatches ?? 1,
      matcherFactory: options.matcherFactory,
      matcherOptions: options.matcherOptions,
      workDir: scratch,
      asOf: NCVR_AS_OF,
      ...(options.resultCopy === undefined ? {} : { resultCopy: options.resultCopy }),
    });
    return {
      skipped: false,
      voterRows: prepared.voterRows,
      listRows: prepared.listRows,
      members: prepared.members,
      ...result,
    };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
