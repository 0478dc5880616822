import type { Writable } from 'node:stream';
import { CsvChunkWriter } from '../../csv/csv-writer.ts';
import type { BlockResult, LinePieces } from './format.ts';

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

/** One result file and the number of its last line (its ts__row). */
class NumberedFile {
  readonly #writer: CsvChunkWriter;
  #lines = 0;

  constructor(out: Writable) {
    this.#writer = new CsvChunkWriter(out);
  }

  async header(line: string): Promise<void> {
    await this.#writer.writeFormatted(line);
  }

  /** A block's lines, each numbered between its two pieces. */
  async write(pieces: LinePieces): Promise<void> {
    if (pieces.length === 0) return;
    let text = '';
    for (let i = 0; i < pieces.length; i += 2) text += `${pieces[i]!}${++this.#lines}${pieces[i + 1]!}`;
    await this.#writer.writeFormatted(text);
  }

  async end(): Promise<void> {
    await this.#writer.end();
  }
}

/** The write stage: the result CSVs, written block by block in block order, each line numbered. */
export class OrderedWriter {
  readonly #every: NumberedFile | null;
  readonly #best: NumberedFile | null;
  readonly #additional: NumberedFile | null;
  readonly #onBestMatch: ((id: string) => void) | undefined;

  constructor(sinks: ResultSinks) {
    this.#every = sinks.output ? new NumberedFile(sinks.output) : null;
    this.#best = sinks.split ? new NumberedFile(sinks.split.best) : null;
    this.#additional = sinks.split ? new NumberedFile(sinks.split.additional) : null;
    this.#onBestMatch = sinks.onBestMatch;
  }

  async header(line: string): Promise<void> {
    for (const file of [this.#every, this.#best, this.#additional]) await file?.header(line);
  }

  async write(result: BlockResult): Promise<void> {
    await this.#every?.write(result.every);
    await this.#best?.write(result.best);
    await this.#additional?.write(result.additional);
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
