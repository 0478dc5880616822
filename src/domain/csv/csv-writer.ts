/**
 * CSV output for result files.
 *
 * - Records end with LF (never CRLF) and never contain embedded newlines: CR, LF and CRLF inside a value are
 *   each replaced by one space, so every record is exactly one physical line.
 * - A field is quoted when it contains `,` or `"`, or starts or ends with a space; quotes are doubled.
 * - Spreadsheet formula injection: fields starting with `=`, `+`, `-`, `@`, TAB or CR are prefixed with `'`,
 *   unless the whole value is a plain number such as `-78.91` or `+19195550100`.
 */
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';

const PLAIN_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)$/;
const NEEDS_ESCAPING = /[",\r\n]/;
const NEWLINES = /\r\n|[\r\n]/g;

const EQUALS = 0x3d;
const PLUS = 0x2b;
const MINUS = 0x2d;
const AT = 0x40;
const TAB = 0x09;
const CR = 0x0d;
const SPACE = 0x20;

/**
 * True if a spreadsheet could interpret `value` as a formula: it starts with `=`, `+`, `-`, `@`, TAB or CR
 * and is not a plain number.
 */
export function needsFormulaNeutralization(value: string): boolean {
  const c = value.charCodeAt(0);
  if (c !== EQUALS && c !== PLUS && c !== MINUS && c !== AT && c !== TAB && c !== CR) return false;
  return !PLAIN_NUMBER.test(value);
}

/**
 * Format one record, terminated by `\n`. Formula neutralization applies to every field when `neutralize` is
 * omitted, otherwise only to fields whose `neutralize[i]` is `true`. A record consisting of one empty field is
 * written as `""` so that it does not become an empty line (which readers skip).
 */
export function formatCsvRow(fields: readonly string[], neutralize?: readonly boolean[]): string {
  let out = '';
  const n = fields.length;
  for (let i = 0; i < n; i++) {
    if (i > 0) out += ',';
    let v = fields[i] ?? '';
    if (v.length === 0) continue;
    if ((neutralize === undefined || neutralize[i] === true) && needsFormulaNeutralization(v)) v = `'${v}`;
    let quote = false;
    if (NEEDS_ESCAPING.test(v)) {
      if (v.includes('\n') || v.includes('\r')) v = v.replace(NEWLINES, ' ');
      if (v.includes('"')) {
        v = v.replaceAll('"', '""');
        quote = true;
      } else {
        quote = v.includes(',');
      }
    }
    if (quote || v.charCodeAt(0) === SPACE || v.charCodeAt(v.length - 1) === SPACE) v = `"${v}"`;
    out += v;
  }
  if (n === 1 && out.length === 0) return '""\n';
  return `${out}\n`;
}

export interface CsvChunkWriterOptions {
  /** Approximate chunk size in UTF-16 code units (≈ bytes for mostly-ASCII data). Default 64 KiB. */
  chunkSize?: number;
}

/**
 * Buffers formatted rows into ~64 KiB string chunks before writing them to a stream, and honours
 * backpressure.
 *
 * Usage: `const p = writer.writeRow(fields); if (p) await p;` — `writeRow` returns `undefined` on the common
 * path and a promise only when it wrote a chunk and the stream asked to wait for 'drain'. Always finish with
 * `await writer.end()` (or `flush()` if the stream should stay open).
 */
export class CsvChunkWriter {
  readonly #stream: Writable;
  readonly #chunkSize: number;
  #buffer = '';
  #error: Error | null = null;
  #ended = false;

  constructor(stream: Writable, options: CsvChunkWriterOptions = {}) {
    const chunkSize = options.chunkSize ?? 64 * 1024;
    if (!Number.isSafeInteger(chunkSize) || chunkSize < 1) {
      throw new RangeError('CsvChunkWriter: chunkSize must be a positive integer');
    }
    this.#stream = stream;
    this.#chunkSize = chunkSize;
    // Record errors so they surface on the next call (and do not crash the process as unhandled 'error').
    stream.on('error', (err: Error) => {
      this.#error ??= err;
    });
  }

  /**
   * Append one record. Returns `undefined`, or a promise to await before writing more when the stream is
   * applying backpressure. Throws if the stream has failed or the writer was ended.
   */
  writeRow(fields: readonly string[], neutralize?: readonly boolean[]): Promise<void> | undefined {
    if (this.#ended) throw new Error('CsvChunkWriter: writeRow after end');
    this.#buffer += formatCsvRow(fields, neutralize);
    if (this.#buffer.length < this.#chunkSize) return undefined;
    return this.#writeBuffer();
  }

  /**
   * Append one record already formatted by {@link formatCsvRow} (one line, ending in LF): a row
   * written to several files is formatted once. Returns like {@link writeRow}.
   */
  writeFormatted(record: string): Promise<void> | undefined {
    if (this.#ended) throw new Error('CsvChunkWriter: writeFormatted after end');
    this.#buffer += record;
    if (this.#buffer.length < this.#chunkSize) return undefined;
    return this.#writeBuffer();
  }

  /** Write everything buffered so far and wait until the stream can accept more. */
  async flush(): Promise<void> {
    if (this.#ended) throw new Error('CsvChunkWriter: flush after end');
    const wait = this.#writeBuffer();
    if (wait !== undefined) await wait;
  }

  /** Flush, end the stream and resolve once it has finished (rejects if the stream fails). */
  async end(): Promise<void> {
    if (this.#ended) throw new Error('CsvChunkWriter: end called twice');
    const wait = this.#writeBuffer();
    if (wait !== undefined) await wait;
    this.#ended = true;
    if (this.#error !== null) throw this.#error;
    const done = finished(this.#stream, { readable: false });
    this.#stream.end();
    await done;
    if (this.#error !== null) throw this.#error;
  }

  #writeBuffer(): Promise<void> | undefined {
    if (this.#error !== null) throw this.#error;
    const stream = this.#stream;
    if (stream.destroyed || stream.writableEnded) throw new Error('CsvChunkWriter: stream is closed');
    if (this.#buffer.length === 0) return undefined;
    const chunk = this.#buffer;
    this.#buffer = '';
    if (stream.write(chunk)) return undefined;
    return this.#waitForDrain();
  }

  #waitForDrain(): Promise<void> {
    const stream = this.#stream;
    return new Promise<void>((resolve, reject) => {
      const cleanup = (): void => {
        stream.off('drain', onDrain);
        stream.off('error', onError);
        stream.off('close', onClose);
      };
      const onDrain = (): void => {
        cleanup();
        resolve();
      };
      const onError = (err: Error): void => {
        cleanup();
        reject(err);
      };
      const onClose = (): void => {
        cleanup();
        reject(this.#error ?? new Error('CsvChunkWriter: stream closed before drain'));
      };
      stream.on('drain', onDrain);
      stream.on('error', onError);
      stream.on('close', onClose);
    });
  }
}
