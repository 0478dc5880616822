import { type CsvBlock, parseBlock } from '../../csv/csv-blocks.ts';
import { MAX_BATCH_CELLS } from '../../csv/csv-reader.ts';
import type { MatchInput } from '../../matching/matcher.ts';
import { pickIdentifiers } from '../list-layout.ts';
import type { BlockSpec } from '../list-run.ts';

/**
 * The cut stage's second half: a block of whole records (csv-blocks.ts cut the upload into them,
 * on the job's thread) parsed where it runs, each row with the identifier cells the matcher takes.
 */
export function blockRows(block: CsvBlock, spec: BlockSpec) {
  const parsed = parseBlock(block, spec.layout.width, spec.run.maxRowBytes);
  const inputs: MatchInput[] = parsed.rows.map((record, i) => ({
    row: block.firstRow + i,
    fields: pickIdentifiers(record.fields, spec.layout.identifiers),
  }));
  return { ...parsed, inputs };
}

/**
 * Rows of a list's sample: the run's, or fewer under a header so wide that they would pad to
 * more than MAX_BATCH_CELLS cells.
 */
export const sampleRowsOf = (spec: BlockSpec) =>
  Math.max(1, Math.min(spec.run.sampleRows, Math.floor(MAX_BATCH_CELLS / Math.max(spec.layout.width, 1))));
