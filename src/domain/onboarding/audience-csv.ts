import { formatCsvRow } from '../csv/csv-writer.ts';
import { AppError } from '../errors.ts';
import type { AudienceKey, FileDropProfile } from '../ports/file-drop-audiences.ts';

/** One person's identifiers, already normalized (and hashed where the profile hashes). */
export type AudienceRow = Readonly<Partial<Record<AudienceKey, string>>>;

export interface AudienceCsvCounts {
  /** Rows written. */
  rows: number;
  /** Rows dropped because every value was blank: a platform counts them as invalid. */
  blank: number;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;
const LOOKS_HASHED = /^[0-9a-fA-F]{64}$/;
/** Flush to the consumer about every 64 KiB: large enough for throughput, small for memory. */
const CHUNK_BYTES = 64 * 1024;

/** True when the profile hashes `key`'s values. */
export const isHashedKey = (profile: FileDropProfile, key: AudienceKey): boolean =>
  profile.hashing === 'sha256-hex' && !profile.unhashedKeys.includes(key);

/**
 * Checks that a file with these columns can go to the platform: at least one, no duplicate, each
 * one the profile names. Throws VALIDATION_FAILED naming the offending key.
 */
export function checkAudienceKeys(profile: FileDropProfile, keys: readonly AudienceKey[]): void {
  if (keys.length === 0)
    throw new AppError('VALIDATION_FAILED', 'an audience file needs at least one column');
  const seen = new Set<AudienceKey>();
  for (const key of keys) {
    if (seen.has(key)) throw new AppError('VALIDATION_FAILED', `column ${key} appears twice`);
    seen.add(key);
    if (profile.columns[key] === undefined) {
      throw new AppError('VALIDATION_FAILED', `${profile.displayName} does not take ${key}`);
    }
  }
}

/**
 * Renders the audience CSV for one platform as a stream of chunks, to be staged (blob store) and
 * then uploaded: the header is the platform's column names, then one line per row. Hashing is
 * checked, not done, here: a hashed column takes only lowercase hex SHA-256 or blank, a plain
 * column never takes something that looks like a digest, so a file is never mixed (platforms
 * refuse or silently mismatch mixed files). Errors name the column and row number, never the value.
 * `counts` is filled in as rows pass.
 */
export async function* audienceCsv(
  profile: FileDropProfile,
  keys: readonly AudienceKey[],
  rows: AsyncIterable<AudienceRow> | Iterable<AudienceRow>,
  counts: AudienceCsvCounts = { rows: 0, blank: 0 },
): AsyncGenerator<Buffer> {
  checkAudienceKeys(profile, keys);
  const hashed = keys.map((key) => isHashedKey(profile, key));
  const noNeutralizing = keys.map(() => false);
  // Formula neutralization would change values (a hash or an e-mail is data, not a spreadsheet cell).
  let pending = formatCsvRow(
    keys.map((key) => profile.columns[key]!),
    noNeutralizing,
  );
  let line = 0;
  const fields: string[] = new Array(keys.length);
  for await (const row of rows) {
    line += 1;
    let filled = false;
    for (let i = 0; i < keys.length; i++) {
      const value = row[keys[i]!] ?? '';
      if (value !== '') {
        filled = true;
        if (hashed[i] ? !SHA256_HEX.test(value) : LOOKS_HASHED.test(value)) {
          throw new AppError(
            'VALIDATION_FAILED',
            `row ${line}, column ${keys[i]}: ${profile.displayName} takes ${
              hashed[i] ? 'SHA-256 hex digests' : 'plain values'
            } only; hashed and plain values are never mixed in one file`,
          );
        }
      }
      fields[i] = value;
    }
    if (!filled) {
      counts.blank += 1;
      continue;
    }
    counts.rows += 1;
    pending += formatCsvRow(fields, noNeutralizing);
    if (pending.length >= CHUNK_BYTES) {
      yield Buffer.from(pending);
      pending = '';
    }
  }
  if (pending !== '') yield Buffer.from(pending);
}
