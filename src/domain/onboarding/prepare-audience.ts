import type { OnboardingJob } from '../client-jobs/job-types.ts';
import { type CsvWarning, readCsvTable } from '../csv/csv-reader.ts';
import { AppError } from '../errors.ts';
import type { OnboardingCounts } from '../notices/onboarding-notices.ts';
import { idKey } from '../voters/id-keys.ts';
import type { VoterSnapshot } from '../voters/voter-snapshot.ts';
import { type IdentifierKey, parseIdentifierHeader } from './identifiers/identifier-keys.ts';
import { ColumnHashClassifier, type PlatformRendering } from './identifiers/platform-rendering.ts';
import { createRowRenderer } from './identifiers/row-renderer.ts';
import {
  createVoterRowRenderer,
  PATTERN1_SCHEMA,
  PATTERN1_VOTER_COLUMNS,
} from './identifiers/voter-identifiers.ts';

/**
 * Pattern #1: the client sends voter ids and we send the platform the voters' own identifiers.
 * Pattern #2 (social with `owner_adid`, keys approved for direct upload): the client sends the
 * platform's identifiers itself.
 */
export type OnboardingPattern = 1 | 2;

export interface PreparedAudience {
  pattern: OnboardingPattern;
  /** The platform keys of every staged row, in cell order. */
  schema: readonly IdentifierKey[];
  /** `sent` is 0 here: nothing has gone to the platform yet. */
  counts: OnboardingCounts;
}

export function patternOf(job: OnboardingJob): OnboardingPattern {
  return job.params.platform === 'social' && job.params.ownerAdid !== null ? 2 : 1;
}

/**
 * Reads an onboarding upload and writes one row of normalized, hashed cells per usable input row
 * to `stage` (in input order), so the platform upload can be sent, and resumed, batch by batch.
 * Pattern #1 looks each `voterbase_id` up in the voter file; unknown and malformed ids are
 * counted, not fatal. A file the platform could not take fails with a `Validation Error` that
 * says why: empty, a header of the other pattern or with unknown identifiers, a column mixing
 * hashed and plain values, or no usable row at all. Never throws on the data itself.
 */
export async function prepareAudience(input: {
  job: OnboardingJob;
  source: AsyncIterable<Uint8Array>;
  /** Pattern #1 only: the voter file the ids are looked up in. */
  voters: VoterSnapshot | null;
  rendering: PlatformRendering;
  maxRowBytes: number;
  stage: (cells: string[]) => void;
  /** Awaited after each batch of rows: resolves once what was staged so far can be buffered (backpressure). */
  staged?: () => Promise<void>;
  /** Checked after each batch of rows: an abort (shutdown, lost lease) stops reading with its reason. */
  signal?: AbortSignal;
}): Promise<PreparedAudience> {
  const pattern = patternOf(input.job);
  const counts: OnboardingCounts = { rows: 0, usable: 0, unknownIds: 0, malformed: 0, sent: 0 };
  let schema: readonly IdentifierKey[] | null = null;
  let handleRow: ((fields: string[]) => void) | null = null;
  let classifiers: ColumnHashClassifier[] = [];
  // Over-long records are skipped by the reader (ragged ones are padded and read): count them
  // as rows of the file that could not be read. Only counted: a file of bad rows must not fill memory.
  let skipped = 0;
  for await (const event of readCsvTable(input.source, {
    maxRowBytes: input.maxRowBytes,
    onWarning: (warning: CsvWarning) => {
      if (warning.kind === 'row_too_long') skipped++;
    },
  })) {
    if (event.kind === 'header') {
      if (pattern === 1) {
        checkPattern1Header(event.header);
        schema = PATTERN1_SCHEMA;
        handleRow = pattern1Rows(input, counts);
      } else {
        const parsed = parseIdentifierHeader(event.header);
        if (!parsed.ok) throw new AppError('VALIDATION_FAILED', parsed.message);
        schema = parsed.schema;
        classifiers = parsed.schema.map(() => new ColumnHashClassifier());
        const render = createRowRenderer(input.rendering, parsed.schema);
        handleRow = (fields) => {
          for (let c = 0; c < classifiers.length; c++) classifiers[c]!.add(fields[c]!);
          const cells = render(fields);
          if (cells.every((cell) => cell === '')) {
            counts.malformed++;
            return;
          }
          counts.usable++;
          input.stage(cells);
        };
      }
      continue;
    }
    for (const row of event.rows) {
      counts.rows++;
      handleRow!(row.fields);
    }
    await input.staged?.();
    input.signal?.throwIfAborted();
  }
  if (schema === null) throw new AppError('VALIDATION_FAILED', 'the file is empty: it has no header row');
  counts.rows += skipped;
  counts.malformed += skipped;
  const mixed = schema.filter((_, c) => classifiers[c]?.result === 'mixed');
  if (mixed.length > 0) {
    throw new AppError(
      'VALIDATION_FAILED',
      `column${mixed.length > 1 ? 's' : ''} ${mixed.join(', ')} mix${mixed.length > 1 ? '' : 'es'} SHA-256 hashed and plain values; send each column all hashed or all plain`,
    );
  }
  if (counts.usable === 0) {
    throw new AppError(
      'VALIDATION_FAILED',
      counts.rows === 0
        ? 'the file has a header but no rows'
        : pattern === 1
          ? `none of the ${counts.rows} voterbase_id values is in the voter file`
          : `none of the ${counts.rows} rows holds a usable identifier`,
    );
  }
  return { pattern, schema, counts };
}

/** Pattern #1 takes exactly one column, `voterbase_id` (any case). */
function checkPattern1Header(header: readonly string[]): void {
  const names = header.map((name) => name.trim().toLowerCase());
  if (names.length === 1 && names[0] === 'voterbase_id') return;
  if (!names.includes('voterbase_id')) {
    throw new AppError(
      'VALIDATION_FAILED',
      'the header must be the single column voterbase_id (platform identifiers such as EMAIL or PHONE need owner_adid and a key approved for direct upload)',
    );
  }
  throw new AppError(
    'VALIDATION_FAILED',
    `the header must be the single column voterbase_id; remove ${names.filter((n) => n !== 'voterbase_id').length} other column(s)`,
  );
}

function pattern1Rows(
  input: { voters: VoterSnapshot | null; rendering: PlatformRendering; stage: (cells: string[]) => void },
  counts: OnboardingCounts,
): (fields: string[]) => void {
  const voters = input.voters;
  if (voters === null) {
    throw new AppError('INTERNAL', 'no voter file is loaded: import one before onboarding voter ids');
  }
  const positions = PATTERN1_VOTER_COLUMNS.map((column) => voters.columnIndex(column));
  const render = createVoterRowRenderer(input.rendering);
  return (fields) => {
    const key = idKey('voterbase_id', fields[0] ?? '', '');
    if (key === null) {
      counts.malformed++;
      return;
    }
    const [voter] = voters.lookup('voterbase_id', key);
    if (voter === undefined) {
      counts.unknownIds++;
      return;
    }
    const cells = render(voters.fields(voter, positions));
    // A voter record without a single identifier the platform can use is found but not usable.
    if (cells.every((cell) => cell === '')) return;
    counts.usable++;
    input.stage(cells);
  };
}
