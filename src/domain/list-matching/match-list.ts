import type { Writable } from 'node:stream';
import { type CsvBlock, cutCsvBlocks } from '../csv/csv-blocks.ts';
import { type CsvWarning, MAX_BATCH_CELLS } from '../csv/csv-reader.ts';
import { CsvChunkWriter, formatCsvRow } from '../csv/csv-writer.ts';
import { AppError } from '../errors.ts';
import type { AppendedField } from '../keys/key-types.ts';
import type { VoterSnapshot } from '../voters/voter-snapshot.ts';
import { type BlockRunner, inThreadBlocks, type ListMatcher } from './block-runner.ts';
import { type ListLayout, MATCH_COLUMNS, planLayout } from './list-layout.ts';
import {
  type BlockResult,
  type BlockSpec,
  blockInputs,
  countFormulaCells,
  matchOptionsOf,
} from './match-block.ts';
import {
  emptyTally,
  type ListSummary,
  listSummary,
  mergeTally,
  type Tally,
  WarningLog,
} from './summary-tally.ts';

export { MATCH_COLUMNS, MAX_LIST_COLUMNS } from './list-layout.ts';
export type { ListSummary } from './summary-tally.ts';

/** Ragged rows tolerated before the file is judged not to be a consistent CSV (beyond 1% of rows). */
const RAGGED_ROWS_ALLOWED = 1000;
/**
 * Blocks kept in flight per block the runner works on at once. Results are written in order, so
 * a slow block (a thread's first, before its code is compiled) holds up the writing; the others
 * keep every thread busy meanwhile. Memory: a block is 64 KiB of list and its result lines.
 */
const IN_FLIGHT_PER_WORKER = 4;
/**
 * The matcher's sample (what its model is fitted on: up to 2,000 of these rows that no id
 * matched, see emSampleRows): the first SAMPLE_ROWS data rows of the blocks that
 * start in the first SAMPLE_WINDOW_BYTES of the file. Defined on the file's bytes, so it is the
 * same whatever the source's chunks and the threads; the window bounds what is held for it when
 * rows are wide. A few thousand rows fit m well; 64 KiB of a list (a few hundred rows) fit it
 * measurably worse (NC benchmark recall 0.9986 against 0.9990).
 */
export const SAMPLE_WINDOW_BYTES = 1024 * 1024;
export const SAMPLE_ROWS = 5000;

export interface MatchListInput {
  source: AsyncIterable<Uint8Array>;
  /** Receives the result CSV with every rank (UTF-8, no BOM, LF line ends); absent: not written. */
  output?: Writable;
  /**
   * Receives the same lines split in two CSVs with the same header: `best` one line per input
   * row (its best match, or its unmatched line) and, for a couple row (`first_name_combined`)
   * with max_matches ≥ 2, the second person's own best match too; `additional` every later
   * rank. In input order.
   */
  split?: { best: Writable; additional: Writable };
  /** Its `blocks` runner, when it has one, matches the list's blocks on worker threads. */
  matcher: ListMatcher;
  voters: VoterSnapshot | null;
  /** Voter-file fields to append, each written as `vb.<as>`. */
  appendedFields: readonly AppendedField[];
  /** Most lines written per input row (spec 2.4: an upper bound, whatever the matcher returns). */
  maxMatches: number;
  searchRadiusMiles: number | null;
  maxRowBytes: number;
  asOf: Date;
  onProgress?: (rows: number) => void;
  /** Called with the `voterbase_id` of every best match (a media-buying audience is built from them). */
  onBestMatch?: (voterbaseId: string) => void;
}

/**
 * Streams one contact list through parse → match → write with memory flat in the list's size.
 * This thread only cuts the stream into blocks of whole records and writes the blocks' results
 * in order; the blocks are parsed, matched and formatted by the matcher's block runner (on worker
 * threads), or here. The output is the same whatever runs the blocks and however many threads.
 *
 * Every input row appears in the output: once per match (ranks 1..k, k ≤ maxMatches), or once
 * with empty match columns and `sm.match` = N. The client's cells (the header's too) are written
 * as they came (newlines aside), formula-like ones counted; the columns the service adds are
 * neutralized against spreadsheet formulas. Problems of single rows become warnings; a file that
 * cannot be a contact list (empty, no identifier column) throws a VALIDATION_FAILED AppError.
 */
export async function matchList(input: MatchListInput): Promise<ListSummary> {
  const runner: BlockRunner = input.matcher.blocks ?? inThreadBlocks(input.matcher, input.voters);
  const writer = new OrderedWriter(input);
  const warnings = new WarningLog();
  let list: { layout: ListLayout; spec: BlockSpec; tally: Tally } | null = null;
  let raggedRows = 0;
  let tooLongLines = false;
  const inFlight: Promise<BlockResult>[] = [];

  /** Writes the oldest block in flight and adds its counts (blocks finish in any order, are written in order). */
  const settle = async (): Promise<void> => {
    const result = await inFlight.shift()!;
    const { tally } = list!;
    for (const warning of result.warnings) addWarning(warnings, warning);
    mergeTally(tally, result.tally);
    raggedRows += result.raggedRows;
    // Padding short rows multiplies the output: a file where they are common is not a usable CSV.
    if (raggedRows > RAGGED_ROWS_ALLOWED && raggedRows > tally.rows / 100) {
      throw new AppError(
        'VALIDATION_FAILED',
        `${raggedRows} of the first ${tally.rows} rows have a different number of fields than the header; the file is not a consistent CSV`,
      );
    }
    await writer.write(result);
    if (input.onBestMatch) for (const id of result.bestIds) input.onBestMatch(id);
    input.onProgress?.(tally.rows);
  };

  /** Blocks read before the model is fitted (null once it is). */
  let sampling: CsvBlock[] | null = [];
  /** Fits the model on the sample of the blocks held, then starts them. */
  const startSampled = async (blocks: readonly CsvBlock[]): Promise<void> => {
    sampling = null;
    const { spec } = list!;
    await runner.prepare(() => sampleOf(blocks, spec), matchOptionsOf(spec));
    for (const block of blocks) await start(block);
  };
  const start = async (block: CsvBlock): Promise<void> => {
    const running = runner.run(block, list!.spec);
    running.catch(() => {});
    inFlight.push(running);
    while (inFlight.length > IN_FLIGHT_PER_WORKER * runner.parallelism) await settle();
  };

  try {
    let trailing: CsvWarning[] = [];
    for await (const event of cutCsvBlocks(input.source, { maxRowBytes: input.maxRowBytes })) {
      if (event.kind === 'header') {
        for (const warning of event.warnings) addWarning(warnings, warning);
        // The reader skips an over-long first record and would take the next one as the header.
        if (event.warnings.some((w) => w.kind === 'row_too_long' && w.line < event.line))
          throw headerTooLongError(input.maxRowBytes);
        const layout = planLayout(event.header, input.appendedFields, input.voters, (kind, message) =>
          warnings.note(kind, message),
        );
        const tally = emptyTally(layout.width);
        countFormulaCells(event.header, tally.formulaCells);
        list = { layout, spec: blockSpec(input, layout), tally };
        await writer.header(
          formatCsvRow([...event.header, ...MATCH_COLUMNS, ...layout.appendedHeaders], layout.neutralize),
        );
      } else if (event.kind === 'block') {
        if (sampling === null) await start(event.block);
        else {
          // Blocks wait, in order, until the sample they begin is complete.
          sampling.push(event.block);
          if (sampleComplete(sampling, list!.spec)) await startSampled(sampling);
        }
      } else {
        trailing = event.warnings;
        tooLongLines = trailing.some((w) => w.kind === 'row_too_long');
      }
    }
    // A list shorter than the sample.
    if (sampling !== null && sampling.length > 0) await startSampled(sampling);
    while (inFlight.length > 0) await settle();
    for (const warning of trailing) addWarning(warnings, warning);
  } catch (error) {
    // Blocks still running are let go: their results are no longer wanted.
    inFlight.length = 0;
    throw error;
  }
  if (list === null && tooLongLines) throw headerTooLongError(input.maxRowBytes);
  if (list === null) throw new AppError('VALIDATION_FAILED', 'the uploaded file is empty');
  if (list.tally.rows === 0) warnings.note('no_data_rows', 'the file has a header but no data rows');
  await writer.end();
  return listSummary(list.tally, list.layout, warnings);
}

/**
 * Logs a reader's warning, or fails the list when the warning means rows were lost: a quoted
 * field never closed reads every line after it into one cell (or past the row limit), so those
 * rows would be missing from the result with nothing but a count to show for it.
 */
function addWarning(warnings: WarningLog, warning: CsvWarning): void {
  const swallowed = warning.kind === 'unterminated_quote' ? (warning.linesSwallowed ?? 0) : 0;
  if (swallowed > 0) {
    throw new AppError(
      'VALIDATION_FAILED',
      `line ${warning.line}: a quoted field is never closed, so the ${swallowed} line${swallowed === 1 ? '' : 's'} after it were read into one cell; close or remove the quote and upload again`,
    );
  }
  warnings.add(warning);
}

function blockSpec(input: MatchListInput, layout: ListLayout): BlockSpec {
  return {
    layout,
    maxMatches: input.maxMatches,
    searchRadiusMiles: input.searchRadiusMiles,
    asOf: input.asOf.getTime(),
    maxRowBytes: input.maxRowBytes,
    outputs: {
      every: input.output !== undefined,
      split: input.split !== undefined,
      bestIds: input.onBestMatch !== undefined,
    },
  };
}

/**
 * Rows of the sample: SAMPLE_ROWS, or fewer under a header so wide that they would pad to more
 * than MAX_BATCH_CELLS cells.
 */
const sampleRows = (spec: BlockSpec) =>
  Math.max(1, Math.min(SAMPLE_ROWS, Math.floor(MAX_BATCH_CELLS / Math.max(spec.layout.width, 1))));

/** Whether the blocks read so far hold the whole sample (see SAMPLE_ROWS). */
function sampleComplete(blocks: readonly CsvBlock[], spec: BlockSpec): boolean {
  const last = blocks[blocks.length - 1]!;
  if (last.offset >= SAMPLE_WINDOW_BYTES) return true;
  let rows = 0;
  for (const block of blocks) rows += block.records;
  return rows >= sampleRows(spec);
}

/** The sample's rows, from the blocks read before it was complete. */
function sampleOf(blocks: readonly CsvBlock[], spec: BlockSpec) {
  const wanted = sampleRows(spec);
  const rows = [];
  for (const block of blocks) {
    if (block.offset >= SAMPLE_WINDOW_BYTES || rows.length >= wanted) break;
    rows.push(...blockInputs(block, spec).inputs);
  }
  return rows.slice(0, wanted);
}

/** The result CSVs, written block by block in order. */
class OrderedWriter {
  readonly #every: CsvChunkWriter | null;
  readonly #best: CsvChunkWriter | null;
  readonly #additional: CsvChunkWriter | null;

  constructor(input: Pick<MatchListInput, 'output' | 'split'>) {
    this.#every = input.output ? new CsvChunkWriter(input.output) : null;
    this.#best = input.split ? new CsvChunkWriter(input.split.best) : null;
    this.#additional = input.split ? new CsvChunkWriter(input.split.additional) : null;
  }

  async header(line: string): Promise<void> {
    for (const writer of [this.#every, this.#best, this.#additional]) await writer?.writeFormatted(line);
  }

  async write(result: BlockResult): Promise<void> {
    for (const [writer, text] of [
      [this.#every, result.every],
      [this.#best, result.best],
      [this.#additional, result.additional],
    ] as const) {
      if (writer !== null && text !== '') await writer.writeFormatted(text);
    }
  }

  async end(): Promise<void> {
    for (const writer of [this.#every, this.#best, this.#additional]) await writer?.end();
  }
}

const headerTooLongError = (maxRowBytes: number) =>
  new AppError(
    'VALIDATION_FAILED',
    `the first line is longer than ${maxRowBytes} bytes, so it cannot be a CSV header; is this a CSV file?`,
  );
