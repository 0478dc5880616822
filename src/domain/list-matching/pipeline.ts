import { cutCsvBlocks } from '../csv/csv-blocks.ts';
import type { CsvWarning } from '../csv/csv-reader.ts';
import { formatCsvRow } from '../csv/csv-writer.ts';
import { AppError } from '../errors.ts';
import type { VoterSnapshot } from '../voters/voter-snapshot.ts';
import type { BlockExecutor } from './block-executor.ts';
import type { BlockOutput } from './block-stages.ts';
import { type ListLayout, planLayout, resultHeader } from './list-layout.ts';
import type { BlockSpec, ListRun } from './list-run.ts';
import { countFormulaCells } from './stages/format.ts';
import { OrderedWriter, type ResultSinks } from './stages/write.ts';
import {
  emptyTally,
  type ListSummary,
  listSummary,
  mergeTally,
  type Tally,
  WarningLog,
} from './summary-tally.ts';

/** Ragged rows tolerated before the file is judged not to be a consistent CSV (beyond 1% of rows). */
const RAGGED_ROWS_ALLOWED = 1000;
/**
 * Blocks kept in flight per block the executor works on at once. Outputs are taken in order, so
 * a slow block (a thread's first, before its code is compiled) holds up the writing; the others
 * keep every thread busy meanwhile. Memory: a block is 64 KiB of list and its result lines.
 */
const IN_FLIGHT_PER_WORKER = 4;

export interface ListPass {
  /** The upload, from its first byte. */
  source: AsyncIterable<Uint8Array>;
  run: ListRun;
  /** The voter file whose columns are appended (null: none, e.g. the split). */
  voters: VoterSnapshot | null;
  /** Where the block stage runs. */
  executor: BlockExecutor;
  sinks?: ResultSinks;
  /**
   * Each block's output, in block order, once its lines are written. Returning true stops the
   * pass there (the sample pass, once the sample is complete): nothing after it is read.
   */
  onBlock?: (output: BlockOutput, spec: BlockSpec) => boolean | undefined | Promise<boolean | undefined>;
  /** Rows done so far (a running total). */
  onProgress?: (rows: number) => void;
  /** Blocks in flight before the oldest is taken (default: a few per block the executor works on at once). */
  inFlight?: number;
}

export interface PassResult {
  summary: ListSummary;
  /** Whether onBlock stopped it before the end of the upload. */
  stopped: boolean;
}

/**
 * One pass over a contact list, with memory flat in the list's size: the upload cut into blocks of
 * whole records (this thread), each block through the executor's stage (here or on worker
 * threads), the outputs taken and written in block order. Every pass over a list runs this (the
 * match, the sample, the split, the assembly), so each checks the file the same way: problems of
 * single rows become warnings; a file that cannot be a contact list (empty, no identifier column,
 * a quote never closed, mostly ragged rows) throws a VALIDATION_FAILED AppError.
 *
 * Every input row appears in the result: once per match (ranks 1..k, k ≤ max_matches), or once
 * with empty match columns and `sm.match` = N. The client's cells (the header's too) are written
 * as they came (newlines aside), formula-like ones counted; the columns the service adds are
 * neutralized against spreadsheet formulas.
 */
export async function runPass(pass: ListPass): Promise<PassResult> {
  const { executor, run } = pass;
  const room = pass.inFlight ?? IN_FLIGHT_PER_WORKER * executor.parallelism + 1;
  const writer = new OrderedWriter(pass.sinks ?? {});
  const warnings = new WarningLog();
  let list: { layout: ListLayout; spec: BlockSpec; tally: Tally } | null = null;
  let raggedRows = 0;
  let tooLongLines = false;
  let stopped = false;
  const inFlight: Promise<BlockOutput>[] = [];

  /** Takes the oldest block in flight: its counts, its lines written (blocks finish in any order). */
  const settle = async (): Promise<void> => {
    const output = await inFlight.shift()!;
    const { result } = output;
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
    if ((await pass.onBlock?.(output, list!.spec)) === true) stopped = true;
    pass.onProgress?.(tally.rows);
  };

  try {
    let trailing: CsvWarning[] = [];
    for await (const event of cutCsvBlocks(pass.source, { maxRowBytes: run.maxRowBytes })) {
      if (event.kind === 'header') {
        for (const warning of event.warnings) addWarning(warnings, warning);
        // The reader skips an over-long first record and would take the next one as the header.
        if (event.warnings.some((w) => w.kind === 'row_too_long' && w.line < event.line))
          throw headerTooLongError(run.maxRowBytes);
        const layout = planLayout(event.header, run.appendedFields, pass.voters, (kind, message) =>
          warnings.note(kind, message),
        );
        const tally = emptyTally(layout.width);
        countFormulaCells(event.header, tally.formulaCells);
        list = { layout, spec: Object.freeze({ run, layout }), tally };
        await writer.header(formatCsvRow(resultHeader(event.header, layout), layout.neutralize));
      } else if (event.kind === 'block') {
        const running = executor.run(event.block, list!.spec);
        // Awaited in order by settle; a failure before its turn must not go unhandled meanwhile.
        running.catch(() => {});
        inFlight.push(running);
        while (!stopped && inFlight.length >= room) await settle();
        if (stopped) break;
      } else {
        trailing = event.warnings;
        tooLongLines = trailing.some((w) => w.kind === 'row_too_long');
      }
    }
    while (!stopped && inFlight.length > 0) await settle();
    if (!stopped) for (const warning of trailing) addWarning(warnings, warning);
  } finally {
    // Blocks still running are let go: their outputs are no longer wanted.
    inFlight.length = 0;
  }
  if (list === null && tooLongLines) throw headerTooLongError(run.maxRowBytes);
  if (list === null) throw new AppError('VALIDATION_FAILED', 'the uploaded file is empty');
  if (list.tally.rows === 0) warnings.note('no_data_rows', 'the file has a header but no data rows');
  await writer.end();
  return { summary: listSummary(list.tally, list.layout, warnings), stopped };
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

const headerTooLongError = (maxRowBytes: number) =>
  new AppError(
    'VALIDATION_FAILED',
    `the first line is longer than ${maxRowBytes} bytes, so it cannot be a CSV header; is this a CSV file?`,
  );
