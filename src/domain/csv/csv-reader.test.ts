import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import type { CsvRecord, CsvTableEvent, CsvWarning } from './csv-reader.ts';
import { MAX_BATCH_CELLS, readCsvRecords, readCsvTable } from './csv-reader.ts';

const FIXTURES = new URL('../../../test/fixtures/csv/', import.meta.url);

function fixture(name: string): Promise<Buffer> {
  return readFile(new URL(name, FIXTURES));
}

/** Yields `data` in chunks of `size` bytes (or of the sizes produced by `size()`). */
async function* chunked(data: Uint8Array, size: number | (() => number)): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < data.length; ) {
    const n = typeof size === 'number' ? size : size();
    yield data.subarray(i, i + n);
    i += n;
  }
}

async function* parts(...pieces: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const p of pieces) yield p;
}

interface Parsed {
  records: CsvRecord[];
  warnings: CsvWarning[];
  batches: number;
}

async function parse(
  source: AsyncIterable<Uint8Array> | Uint8Array | string,
  maxRowBytes = 1 << 20,
): Promise<Parsed> {
  const input = typeof source === 'string' ? Buffer.from(source) : source;
  const iterable = input instanceof Uint8Array ? parts(input) : input;
  const warnings: CsvWarning[] = [];
  const records: CsvRecord[] = [];
  let batches = 0;
  for await (const batch of readCsvRecords(iterable, { maxRowBytes, onWarning: (w) => warnings.push(w) })) {
    assert.ok(batch.length > 0, 'batches are never empty');
    batches++;
    for (const r of batch) records.push(r);
  }
  return { records, warnings, batches };
}

async function parseTable(source: Uint8Array | string, maxRowBytes = 1 << 20) {
  const input = typeof source === 'string' ? Buffer.from(source) : source;
  const warnings: CsvWarning[] = [];
  const events: CsvTableEvent[] = [];
  for await (const ev of readCsvTable(parts(input), { maxRowBytes, onWarning: (w) => warnings.push(w) })) {
    events.push(ev);
  }
  return { events, warnings };
}

/** Plain `[line, ...fields]` tuples for compact assertions. */
function rows(records: CsvRecord[]): (string | number)[][] {
  return records.map((r) => [r.line, ...r.fields]);
}

function kinds(warnings: CsvWarning[]): string[] {
  return warnings.map((w) => `${w.line}:${w.kind}`);
}

/** Messages may contain line numbers, counts and sizes, never data. */
function assertMessagesAreDataFree(warnings: CsvWarning[]): void {
  for (const w of warnings) {
    assert.match(w.message, /^line \d+: [a-zA-Z0-9 ,;.()-]+$/, w.message);
    assert.ok(w.message.startsWith(`line ${w.line}:`), w.message);
  }
}

/** Deterministic PRNG (mulberry32). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Deliberately naive byte-by-byte / char-by-char reference implementation of the documented rules, used to
 * check the optimized reader on random input.
 */
function referenceParse(input: Buffer, maxRowBytes: number): { records: CsvRecord[]; warnings: string[] } {
  const data = input[0] === 0xef && input[1] === 0xbb && input[2] === 0xbf ? input.subarray(3) : input;
  const records: CsvRecord[] = [];
  const warnings: string[] = [];
  let line = 1;
  let i = 0;
  while (i < data.length) {
    const start = i;
    let state: 'start' | 'unquoted' | 'quoted' | 'quoteInQuoted' = 'start';
    let innerLf = 0;
    for (; i < data.length; i++) {
      const c = String.fromCharCode(data[i]!);
      if (state === 'quoted') {
        if (c === '"') state = 'quoteInQuoted';
        else if (c === '\n') innerLf++;
        else if (c === '\r' && i + 1 < data.length && data[i + 1] !== 0x0a) innerLf++;
      } else if (c === '\n') break;
      else if (c === '\r' && data[i + 1] !== 0x0a)
        break; // a lone CR ends a record
      else if (c === ',') state = 'start';
      else if (c === '"') state = state === 'unquoted' ? 'unquoted' : 'quoted';
      else state = 'unquoted';
    }
    let end = i;
    i++;
    const recordLine = line;
    line += 1 + innerLf;
    if (end > start && data[end - 1] === 0x0d) end--;
    const bytes = data.subarray(start, end);
    if (bytes.length === 0 || bytes.every((b) => b === 0x0d)) continue;
    if (bytes.length > maxRowBytes) {
      warnings.push(`${recordLine}:row_too_long`);
      if (state === 'quoted') warnings.push(`${recordLine}:unterminated_quote`);
      continue;
    }
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      warnings.push(`${recordLine}:invalid_utf8`);
      text = new TextDecoder('windows-1252').decode(bytes);
    }
    const fields: string[] = [];
    let f = '';
    let st: 'start' | 'unquoted' | 'quoted' | 'quoteInQuoted' | 'after' = 'start';
    let malformed = false;
    let openLine = recordLine;
    let lfSeen = 0;
    const endField = () => {
      // Stray text after a closing quote: a quote at its very end is taken as the real closing quote.
      if (st === 'after' && f.endsWith('"')) f = f.slice(0, -1);
      fields.push(f);
      f = '';
    };
    const chars = text.split('');
    for (let i = 0; i < chars.length; i++) {
      const ch = chars[i]!;
      if (st === 'start') {
        if (ch === '"') {
          st = 'quoted';
          openLine = recordLine + lfSeen;
        } else if (ch === ',') endField();
        else {
          f = ch;
          st = 'unquoted';
        }
      } else if (st === 'unquoted' || st === 'after') {
        if (ch === ',') {
          endField();
          st = 'start';
        } else {
          if (ch === '"') malformed = true;
          f += ch;
        }
      } else if (st === 'quoted') {
        if (ch === '"') st = 'quoteInQuoted';
        else f += ch;
      } else if (ch === '"') {
        f += '"';
        st = 'quoted';
      } else if (ch === ',') {
        fields.push(f);
        f = '';
        st = 'start';
      } else {
        malformed = true;
        f += `"${ch}`;
        st = 'after';
      }
      // A line ends at LF, CRLF or a lone CR.
      if (ch === '\n' || (ch === '\r' && chars[i + 1] !== '\n')) lfSeen++;
    }
    if (st === 'quoted') warnings.push(`${openLine}:unterminated_quote`);
    endField();
    if (malformed) warnings.push(`${recordLine}:malformed_quotes`);
    records.push({ line: recordLine, fields });
  }
  return { records, warnings };
}

async function assertSameWithChunking(
  data: Buffer,
  maxRowBytes: number,
  chunkSizes: (number | (() => number))[],
) {
  const whole = await parse(data, maxRowBytes);
  for (const size of chunkSizes) {
    const split = await parse(chunked(data, size), maxRowBytes);
    assert.deepEqual(split.records, whole.records);
    assert.deepEqual(split.warnings, whole.warnings);
  }
  return whole;
}

describe('readCsvRecords', () => {
  it('reads a simple file', async () => {
    const { records, warnings } = await parse(await fixture('good.csv'));
    assert.deepEqual(rows(records), [
      [1, 'id', 'first_name', 'last_name', 'email', 'zip'],
      [2, '1', 'Ada', 'Lovelace', 'ada@example.com', '27601'],
      [3, '2', 'Alan', 'Turing', 'alan@example.com', '27602'],
      [4, '3', 'Grace', 'Hopper', 'grace@example.com', '27603'],
    ]);
    assert.deepEqual(warnings, []);
  });

  it('strips the BOM, handles CRLF, skips empty lines and accepts a missing final newline', async () => {
    const { records, warnings } = await parse(await fixture('bom-crlf.csv'));
    assert.deepEqual(rows(records), [
      [1, 'id', 'name', 'city'],
      [2, '1', 'Ada', 'Raleigh'],
      [4, '2', 'Renée', 'Durham'],
      [5, '3', 'Zoë', 'Cary'],
    ]);
    assert.deepEqual(warnings, []);
  });

  it('removes a BOM only at the start of the input, even when split across chunks', async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const pieces = parts(bom.subarray(0, 1), bom.subarray(1, 2), Buffer.from('\xbf\xbfa,b\n', 'latin1'));
    const { records, warnings } = await parse(pieces);
    // The first three bytes are the BOM; the fourth (0xbf) is data, and invalid UTF-8.
    assert.deepEqual(rows(records), [[1, '¿a', 'b']]);
    assert.deepEqual(kinds(warnings), ['1:invalid_utf8']);
    const mid = await parse(Buffer.concat([Buffer.from('a\n'), bom, Buffer.from('b\n')]));
    assert.deepEqual(rows(mid.records), [
      [1, 'a'],
      [2, '\ufeffb'],
    ]);
    assert.deepEqual(rows((await parse(bom)).records), []);
    assert.deepEqual(rows((await parse(bom.subarray(0, 2))).records), [[1, 'ï»']]);
  });

  it('handles quoted commas, newlines and doubled quotes, counting lines inside quotes', async () => {
    const { records, warnings } = await parse(await fixture('quoted-newlines.csv'));
    assert.deepEqual(rows(records), [
      [1, 'id', 'name', 'address', 'note'],
      [2, '1', 'Lovelace, Ada', '12 Main St\nApt 4', 'plain'],
      [4, '2', 'Turing', '1 "Quoted" Rd', 'multi\r\nline\r\nnote'],
      [7, '3', '', '', 'trailing'],
      [8, '4', 'Hopper', '', '"'],
    ]);
    assert.deepEqual(warnings, []);
  });

  it('skips empty lines (including lone-CR and CRLF ones) but counts them', async () => {
    const { records, warnings } = await parse('\n\r\n\na,b\n\n\r\r\n1,2\r\n\n');
    assert.deepEqual(rows(records), [
      [4, 'a', 'b'],
      [8, '1', '2'],
    ]);
    assert.deepEqual(warnings, []);
  });

  it('keeps empty fields; a lone CR outside quotes ends a record', async () => {
    const { records } = await parse(',\n,,\na\rb,\n"",""\n');
    assert.deepEqual(rows(records), [
      [1, '', ''],
      [2, '', '', ''],
      [3, 'a'],
      [4, 'b', ''],
      [5, '', ''],
    ]);
  });

  it('reads every row of a file mixing LF, CRLF and lone CR lines, with CRs and LFs quoted in cells', async () => {
    // Old Mac exports end lines with CR alone; mail-merge tools mix them with LF and CRLF lines.
    const endings = ['\n', '\r\n', '\r'];
    const lines = ['id,name,note'];
    const expected: (string | number)[][] = [];
    let line = 2;
    for (let i = 0; i < 300; i++) {
      const note =
        i % 7 === 0 ? 'two\rlines' : i % 11 === 0 ? 'two\r\nlines' : i % 13 === 0 ? 'a\nb' : `n${i}`;
      const quoted = /[\r\n]/.test(note) || i % 5 === 0;
      lines.push(`${i},Name ${i},${quoted ? `"${note}"` : note}`);
      expected.push([line, String(i), `Name ${i}`, note]);
      line += 1 + (note.match(/\r\n|\r|\n/g)?.length ?? 0);
    }
    let text = `${lines[0]}\r`;
    for (let i = 1; i < lines.length; i++) text += `${lines[i]}${endings[(i * 7) % 3]}`;
    const data = Buffer.from(text);
    const { records, warnings } = await assertSameWithChunking(data, 1 << 20, [1, 2, 3, 17, 4096]);
    assert.deepEqual(warnings, []);
    assert.deepEqual(rows(records).slice(1), expected);
    // A CR ending a chunk is decided by the next chunk: CRLF stays one line end.
    const split = await parse(parts(Buffer.from('a,b\r'), Buffer.from('\n1,2\r'), Buffer.from('3,4\r')));
    assert.deepEqual(rows(split.records), [
      [1, 'a', 'b'],
      [2, '1', '2'],
      [3, '3', '4'],
    ]);
  });

  it('decodes invalid UTF-8 records as Windows-1252 with a warning and leaves valid records alone', async () => {
    const { records, warnings } = await parse(await fixture('latin1.csv'));
    assert.deepEqual(rows(records), [
      [1, 'id', 'name', 'city'],
      [2, '1', 'Ada', 'Raleigh'],
      [3, '2', 'Renée', 'Montréal'],
      [4, '3', 'Zoë', 'Durham'],
      [5, '4', '€uro “quoted”', 'Cary'],
      [6, '5', 'Grace', 'Apex'],
    ]);
    assert.deepEqual(kinds(warnings), ['3:invalid_utf8', '5:invalid_utf8']);
    assert.equal(warnings[0]!.message, 'line 3: not valid UTF-8; read as Windows-1252');
    assertMessagesAreDataFree(warnings);
  });

  it('decodes a quoted Windows-1252 record too', async () => {
    const { records, warnings } = await parse(Buffer.from('"Montr\xe9al, QC",x\n', 'latin1'));
    assert.deepEqual(rows(records), [[1, 'Montréal, QC', 'x']]);
    assert.deepEqual(kinds(warnings), ['1:invalid_utf8']);
  });

  it('decodes multi-byte characters split at every possible chunk boundary', async () => {
    const data = Buffer.from('name,icon\n"Zoë, é",😀\nRenée,👩‍👩‍👧\r\n');
    const expected = [
      [1, 'name', 'icon'],
      [2, 'Zoë, é', '😀'],
      [3, 'Renée', '👩‍👩‍👧'],
    ];
    for (let k = 0; k <= data.length; k++) {
      const { records, warnings } = await parse(parts(data.subarray(0, k), data.subarray(k)));
      assert.deepEqual(rows(records), expected, `split at ${k}`);
      assert.deepEqual(warnings, [], `split at ${k}`);
    }
  });

  it('gives identical results for 1-byte chunks, odd chunk sizes and the whole input', async () => {
    const names = [
      'good.csv',
      'bom-crlf.csv',
      'quoted-newlines.csv',
      'ragged.csv',
      'latin1.csv',
      'malformed-quotes.csv',
    ];
    const pieces = await Promise.all(names.map(fixture));
    const data = Buffer.concat([
      ...pieces.map((p) => Buffer.concat([p, Buffer.from('\n')])),
      Buffer.from('x,"a\r\nb""c""",d\r\n\r\n"e"f"g,"h""",i\n,,,\n"😀é","€"\n"unterminated,\r\n'),
    ]);
    const rng = prng(7);
    const whole = await assertSameWithChunking(data, 40, [1, 2, 3, 7, 64, () => 1 + Math.floor(rng() * 13)]);
    assert.ok(whole.records.length > 30);
    assert.ok(whole.warnings.some((w) => w.kind === 'row_too_long'));
    assert.ok(whole.warnings.some((w) => w.kind === 'unterminated_quote'));
  });

  it('warns about an unterminated quote and still emits what was read', async () => {
    const { records, warnings } = await parse('a,b\n1,"abc\ndef\n');
    assert.deepEqual(rows(records), [
      [1, 'a', 'b'],
      [2, '1', 'abc\ndef\n'],
    ]);
    assert.deepEqual(kinds(warnings), ['2:unterminated_quote']);
    assertMessagesAreDataFree(warnings);

    // The unterminated field opens on a later line than its record.
    const later = await parse('a,b,c\n1,"x\ny","never\nclosed');
    assert.deepEqual(rows(later.records), [
      [1, 'a', 'b', 'c'],
      [2, '1', 'x\ny', 'never\nclosed'],
    ]);
    assert.deepEqual(kinds(later.warnings), ['3:unterminated_quote']);
    assert.match(later.warnings[0]!.message, /record starting on line 2/);
  });

  it('recovers from malformed quotes without throwing', async () => {
    const { records, warnings } = await parse(await fixture('malformed-quotes.csv'));
    assert.deepEqual(rows(records), [
      [1, 'id', 'name', 'note'],
      [2, '1', 'ab"cd', 'ok'],
      [3, '2', 'John "Johnny" Smith', 'x'],
      [4, '3', 'quoted"tail', 'y'],
      [5, '4', 'fine', 'fine'],
    ]);
    assert.deepEqual(kinds(warnings), ['2:malformed_quotes', '3:malformed_quotes', '4:malformed_quotes']);
    assertMessagesAreDataFree(warnings);
  });

  it('treats a quote after leading spaces as literal and keeps later lines intact', async () => {
    const { records, warnings } = await parse('a, "b",c\n"x" ,y\nz\n');
    assert.deepEqual(rows(records), [
      [1, 'a', ' "b"', 'c'],
      [2, 'x" ', 'y'],
      [3, 'z'],
    ]);
    assert.deepEqual(kinds(warnings), ['1:malformed_quotes', '2:malformed_quotes']);
  });

  it('skips a 10 MB line without buffering it (maxRowBytes 1 MiB)', async () => {
    const big = Buffer.alloc(10 * 1024 * 1024, 'x');
    for (let i = 100; i < big.length; i += 1000) big[i] = 0x2c; // commas
    const data = Buffer.concat([Buffer.from('a,b\n'), big, Buffer.from('\r\n1,2\n')]);
    for (const size of [65536, 1 << 20, data.length]) {
      const { records, warnings } = await parse(chunked(data, size), 1 << 20);
      assert.deepEqual(rows(records), [
        [1, 'a', 'b'],
        [3, '1', '2'],
      ]);
      assert.deepEqual(kinds(warnings), ['2:row_too_long']);
      assert.equal(
        warnings[0]!.message,
        `line 2: row is ${big.length} bytes, more than the limit of 1048576 bytes; skipped`,
      );
    }
  });

  it('skips an overlong quoted record across chunks and keeps counting its lines', async () => {
    const quoted = `"${'y\n'.repeat(300_000)}, ""z"""`;
    const data = Buffer.from(`h\n1\n${quoted},tail\n2\n`);
    const { records, warnings } = await assertSameWithChunking(data, 100_000, [65536, 4093]);
    assert.deepEqual(rows(records), [
      [1, 'h'],
      [2, '1'],
      [300_004, '2'],
    ]);
    assert.deepEqual(kinds(warnings), ['3:row_too_long']);
  });

  it('keeps memory flat on a huge input without any newline', async () => {
    const block = Buffer.alloc(1 << 20, 'a');
    const totalMiB = 512;
    async function* endless(): AsyncGenerator<Uint8Array> {
      yield Buffer.from('h\n');
      for (let i = 0; i < totalMiB; i++) yield block;
    }
    const before = process.memoryUsage();
    const { records, warnings } = await parse(endless(), 1 << 20);
    const after = process.memoryUsage();
    assert.deepEqual(rows(records), [[1, 'h']]);
    assert.deepEqual(kinds(warnings), ['2:row_too_long']);
    assert.match(warnings[0]!.message, new RegExp(`row is ${totalMiB * block.length} bytes`));
    const growth = after.heapUsed + after.arrayBuffers - (before.heapUsed + before.arrayBuffers);
    assert.ok(growth < 64 * 1024 * 1024, `memory grew by ${growth} bytes`);
  });

  it('applies maxRowBytes exactly, excluding the line terminator', async () => {
    const { records, warnings } = await parse('abcde\r\nabcdef\r\n"a,b"\n"a,bc"\n', 5);
    assert.deepEqual(rows(records), [
      [1, 'abcde'],
      [3, 'a,b'],
    ]);
    assert.deepEqual(kinds(warnings), ['2:row_too_long', '4:row_too_long']);
    assert.match(warnings[0]!.message, /row is 6 bytes, more than the limit of 5 bytes/);
    // Same through the carried-over (chunk-spanning) path.
    const split = await parse(chunked(Buffer.from('abcde\r\nabcdef\r\n'), 1), 5);
    assert.deepEqual(rows(split.records), [[1, 'abcde']]);
    assert.deepEqual(kinds(split.warnings), ['2:row_too_long']);
    assert.match(split.warnings[0]!.message, /row is 6 bytes/);
  });

  it('accepts plain Uint8Array chunks', async () => {
    const bytes = new Uint8Array(Buffer.from('a,b\n1,2\n'));
    const { records } = await parse(chunked(bytes, 3));
    assert.deepEqual(rows(records), [
      [1, 'a', 'b'],
      [2, '1', '2'],
    ]);
  });

  it('yields nothing for an empty input or only empty lines', async () => {
    assert.deepEqual((await parse('')).records, []);
    assert.deepEqual((await parse('\n\r\n\n')).records, []);
    assert.deepEqual((await parse(parts())).records, []);
  });

  it('never throws on binary garbage, whatever the chunking', async () => {
    const rng = prng(20240601);
    const garbage = Buffer.alloc(2 * 1024 * 1024);
    for (let i = 0; i < garbage.length; i++) garbage[i] = Math.floor(rng() * 256);
    const whole = await assertSameWithChunking(garbage, 4096, [65536, () => 1 + Math.floor(rng() * 5000)]);
    assert.ok(whole.records.length > 0);
    assertMessagesAreDataFree(whole.warnings);

    // CSV-ish garbage that hits the quote and newline states far more often.
    const alphabet = Buffer.from('a,"\n\r\xe9\xc3', 'latin1');
    const csvish = Buffer.alloc(200_000);
    for (let i = 0; i < csvish.length; i++) csvish[i] = alphabet[Math.floor(rng() * alphabet.length)]!;
    const small = csvish.subarray(0, 20_000);
    await assertSameWithChunking(small, 64, [1, () => 1 + Math.floor(rng() * 9)]);
    const result = await assertSameWithChunking(csvish, 256, [() => 1 + Math.floor(rng() * 700), 4096]);
    assertMessagesAreDataFree(result.warnings);
  });

  it('agrees with a naive reference implementation on random CSV-like input', async () => {
    const rng = prng(99);
    const alphabet = Buffer.from('ab,,"""\n\r \xe9\xc3\xa9', 'latin1');
    for (let round = 0; round < 200; round++) {
      const data = Buffer.alloc(1 + Math.floor(rng() * 300));
      for (let i = 0; i < data.length; i++) data[i] = alphabet[Math.floor(rng() * alphabet.length)]!;
      const maxRowBytes = 1 + Math.floor(rng() * 60);
      const expected = referenceParse(data, maxRowBytes);
      for (const size of [data.length, 1, 1 + Math.floor(rng() * 20)]) {
        const actual = await parse(chunked(data, size), maxRowBytes);
        const context = `round ${round}, chunk ${size}, input ${JSON.stringify(data.toString('latin1'))}`;
        assert.deepEqual(actual.records, expected.records, context);
        assert.deepEqual(kinds(actual.warnings), expected.warnings, context);
      }
    }
  });

  it('round-trips random well-formed RFC 4180 data', async () => {
    const rng = prng(42);
    const pieces = ['a', 'b', ',', '"', '\n', '\r\n', ' ', 'é', '😀', '€', 'x'];
    const table: string[][] = [];
    for (let r = 0; r < 2000; r++) {
      const row: string[] = [];
      const width = 1 + Math.floor(rng() * 6);
      for (let c = 0; c < width; c++) {
        let v = '';
        const len = Math.floor(rng() * 8);
        for (let k = 0; k < len; k++) v += pieces[Math.floor(rng() * pieces.length)];
        row.push(v);
      }
      if (row.length === 1 && row[0] === '') row[0] = 'x'; // an empty line is not a record
      table.push(row);
    }
    const encode = (v: string) => (/[",\r\n]/.test(v) || rng() < 0.2 ? `"${v.replaceAll('"', '""')}"` : v);
    const text = table.map((row) => `${row.map(encode).join(',')}${rng() < 0.5 ? '\r\n' : '\n'}`).join('');
    const data = Buffer.from(text);
    const { records, warnings } = await assertSameWithChunking(data, 1 << 20, [1, 17, 4096]);
    assert.deepEqual(warnings, []);
    assert.deepEqual(
      records.map((r) => r.fields),
      table,
    );
    // Line numbers: each record starts after all LFs of the previous records.
    let line = 1;
    for (let i = 0; i < table.length; i++) {
      assert.equal(records[i]!.line, line);
      line += 1 + (table[i]!.join('').match(/\n/g)?.length ?? 0);
    }
  });

  it('rejects invalid options', async () => {
    await assert.rejects(parse('a\n', 0), RangeError);
    await assert.rejects(parse('a\n', 1.5), RangeError);
  });
});

describe('readCsvTable', () => {
  it('yields the header, then rows normalized to the header width', async () => {
    const { events, warnings } = await parseTable(await fixture('ragged.csv'));
    assert.deepEqual(events, [
      { kind: 'header', header: ['a', 'b', 'c', 'd'], line: 1 },
      {
        kind: 'rows',
        rows: [
          { line: 2, fields: ['1', '2', '3', '4'] },
          { line: 3, fields: ['1', '2', '', ''] },
          { line: 4, fields: ['1', '2', '3', '4'] },
          { line: 6, fields: ['1', '2', '3', '4'] },
        ],
      },
    ]);
    assert.deepEqual(
      warnings.map((w) => [w.line, w.kind, w.message]),
      [
        [3, 'ragged_row', 'line 3: 2 fields, header has 4'],
        [4, 'ragged_row', 'line 4: 6 fields, header has 4'],
      ],
    );
  });

  it('handles a header-only file', async () => {
    assert.deepEqual((await parseTable('id,name\n')).events, [
      { kind: 'header', header: ['id', 'name'], line: 1 },
    ]);
    assert.deepEqual((await parseTable('\n\nid,name')).events, [
      { kind: 'header', header: ['id', 'name'], line: 3 },
    ]);
  });

  it('yields nothing for an empty file', async () => {
    assert.deepEqual((await parseTable('')).events, []);
    assert.deepEqual((await parseTable('\r\n\n')).events, []);
    assert.deepEqual((await parseTable('\ufeff')).events, []);
  });

  it('emits the header separately when rows arrive in later batches', async () => {
    const warnings: CsvWarning[] = [];
    const events: CsvTableEvent[] = [];
    const source = chunked(Buffer.from('h1,h2\n1,2\n3\n'), 1);
    for await (const ev of readCsvTable(source, { maxRowBytes: 100, onWarning: (w) => warnings.push(w) })) {
      events.push(ev);
    }
    assert.deepEqual(events[0], { kind: 'header', header: ['h1', 'h2'], line: 1 });
    const all = events.flatMap((e) => (e.kind === 'rows' ? e.rows : []));
    assert.deepEqual(rows(all), [
      [2, '1', '2'],
      [3, '3', ''],
    ]);
    assert.ok(events.slice(1).every((e) => e.kind === 'rows' && e.rows.length > 0));
    assert.deepEqual(kinds(warnings), ['3:ragged_row']);
  });
});

it('readCsvTable bounds each batch to MAX_BATCH_CELLS cells under a wide header', async () => {
  const width = 5_000;
  const header = Array.from({ length: width }, (_, i) => `c${i}`).join(',');
  const input = Buffer.from(`${header}\n${'1\n'.repeat(2_000)}`);
  let rows = 0;
  let ragged = 0;
  for await (const event of readCsvTable(Readable.from([input]), {
    maxRowBytes: 1 << 20,
    onWarning: () => ragged++,
  })) {
    if (event.kind !== 'rows') continue;
    assert.ok(event.rows.length * width <= MAX_BATCH_CELLS, `batch of ${event.rows.length} rows`);
    for (const row of event.rows) assert.equal(row.fields.length, width);
    rows += event.rows.length;
  }
  assert.equal(rows, 2_000);
  assert.equal(ragged, 2_000);
});
