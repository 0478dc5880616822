import type { Writable } from 'node:stream';
import { CsvChunkWriter } from '../../csv/csv-writer.ts';
import type { BlockResult } from './format.ts';

/** Where a list's result goes: the CSV with every rank, the best/additional split, the best matches' ids. */
export interface ResultSinks {
  /** Receives the result CSV with every rank (UTF-8, no BOM, LF line ends); absent: not written. */
  output?: Writable;
  /**
   * Receives the same lines split in two CSVs with the same header: `best` one line per input
   * row (its best match, or its unmatched line) and, for a couple row (`first_name_combined`)
   * with max_matches ≥ 2, the second person's own best match too; `additional` every later
   * rank. In input order.
   */
  split?: { best: Writable; additional: Writable };
  /** Called with the `voterbase_id` of every best match (a media-buying audience is built from them). */
  onBestMatch?: (voterbaseId: string) => void;
}

/** The write stage: the result CSVs, written block by block in block order. */
export class OrderedWriter {
  readonly #every: CsvChunkWriter | null;
  readonly #best: CsvChunkWriter | null;
  readonly #additional: CsvChunkWriter | null;
  readonly #onBestMatch: ((id: string) => void) | undefined;

  constructor(sinks: ResultSinks) {
    this.#every = sinks.output ? new CsvChunkWriter(sinks.output) : null;
    this.#best = sinks.split ? new CsvChunkWriter(sinks.split.best) : null;
    this.#additional = sinks.split ? new CsvChunkWriter(sinks.split.additional) : null;
    this.#onBestMatch = sinks.onBestMatch;
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
    if (this.#onBestMatch) for (const id of result.bestIds) this.#onBestMatch(id);
  }

  async end(): Promise<void> {
    for (const writer of [this.#every, this.#best, this.#additional]) await writer?.end();
  }
}

/** Which outputs a run writes, from its sinks. */
export const outputsOf = (sinks: ResultSinks) => ({
  every: sinks.output !== undefined,
  split: sinks.split !== undefined,
  bestIds: sinks.onBestMatch !== undefined,
});
