import assert from 'node:assert/strict';
import { PassThrough, Writable } from 'node:stream';
import { describe, it } from 'node:test';
import type { CsvRecord } from './csv-reader.ts';
import { readCsvRecords } from './csv-reader.ts';
import { CsvChunkWriter, formatCsvRow, needsFormulaNeutralization } from './csv-writer.ts';

async function readBack(source: AsyncIterable<Uint8Array>): Promise<CsvRecord[]> {
  const out: CsvRecord[] = [];
  const onWarning = () => assert.fail('unexpected warning');
  for await (const batch of readCsvRecords(source, { maxRowBytes: 1 << 20, onWarning })) out.push(...batch);
  return out;
}

async function* once(text: string): AsyncGenerator<Uint8Array> {
  yield Buffer.from(text);
}

describe('formatCsvRow', () => {
  it('writes plain fields unquoted and terminates with LF', () => {
    assert.equal(formatCsvRow(['a', 'b c', '', 'é😀']), 'a,b c,,é😀\n');
    assert.equal(formatCsvRow([]), '\n');
  });

  it('quotes fields with commas, quotes or leading/trailing spaces and doubles quotes', () => {
    assert.equal(
      formatCsvRow(['a,b', 'say "hi"', ' lead', 'trail ', 'mid dle']),
      '"a,b","say ""hi"""," lead","trail ",mid dle\n',
    );
    assert.equal(formatCsvRow(['"']), '""""\n');
  });

  it('writes a single empty field as "" so that the record is not an empty line', () => {
    assert.equal(formatCsvRow(['']), '""\n');
    assert.equal(formatCsvRow(['', '']), ',\n');
  });

  it('replaces embedded CR, LF and CRLF with a single space', () => {
    assert.equal(formatCsvRow(['a\r\nb', 'c\nd', 'e\rf', 'g\n\nh', 'x\r\n']), 'a b,c d,e f,g  h,"x "\n');
    assert.equal(formatCsvRow(['1 "q"\nline']), '"1 ""q"" line"\n');
  });

  it('neutralizes spreadsheet formulas', () => {
    assert.equal(
      formatCsvRow(['=SUM(A1:A2)', '+1 555', '-x', '@cmd', '\tx', 'safe=1']),
      "'=SUM(A1:A2),'+1 555,'-x,'@cmd,'\tx,safe=1\n",
    );
    // CR is neutralized first, then replaced by a space.
    assert.equal(formatCsvRow(['\r=1']), "' =1\n");
    // Neutralized values are still quoted when needed.
    assert.equal(formatCsvRow(['=1,2', '=" x"']), `"'=1,2","'="" x"""\n`);
    assert.equal(formatCsvRow(['-', '+']), "'-,'+\n");
  });

  it('leaves plain numbers alone', () => {
    assert.equal(
      formatCsvRow(['-78.91', '+19195550100', '-5', '+.5', '-7.', '35.77']),
      '-78.91,+19195550100,-5,+.5,-7.,35.77\n',
    );
    assert.equal(
      formatCsvRow(['-1e5', '+1-919-555-0100', '--1', '-1.2.3']),
      "'-1e5,'+1-919-555-0100,'--1,'-1.2.3\n",
    );
  });

  it('neutralizes only the selected columns when a mask is given', () => {
    assert.equal(formatCsvRow(['=a', '=b', '=c'], [true, false]), "'=a,=b,=c\n");
  });

  it('exports the neutralization predicate', () => {
    for (const v of ['=1', '+a', '-a', '@a', '\ta', '\ra', '-', '=-1', '+1 2']) {
      assert.equal(needsFormulaNeutralization(v), true, JSON.stringify(v));
    }
    for (const v of ['', 'a', ' =1', '-78.91', '+19195550100', '-.5', '7', '1=1']) {
      assert.equal(needsFormulaNeutralization(v), false, JSON.stringify(v));
    }
  });

  it('produces output the reader parses back to the same values', async () => {
    const table = [
      ['id', 'name', 'note'],
      ['1', 'Lovelace, Ada', 'said "hi"'],
      ['2', ' spaced ', ''],
      ['3', 'Zoë', '€'],
    ];
    const text = table.map((r) => formatCsvRow(r)).join('');
    const records = await readBack(once(text));
    assert.deepEqual(
      records.map((r) => r.fields),
      table,
    );
  });
});

describe('CsvChunkWriter', () => {
  it('round-trips 100k rows through a PassThrough in ~64 KiB chunks with backpressure', async () => {
    const writeSizes: number[] = [];
    const stream = new PassThrough({
      transform(chunk: Buffer, _encoding, callback) {
        writeSizes.push(chunk.length);
        callback(null, chunk);
      },
    });
    const writer = new CsvChunkWriter(stream);
    const rowCount = 100_000;
    const row = (i: number) => [
      String(i),
      `name ${i}`,
      i % 7 === 0 ? `a,"b"\n${i}` : 'plain',
      `=x${i}`,
      `-${i}.5`,
    ];
    const reading = readBack(
      (async function* () {
        for await (const chunk of stream) yield chunk as Buffer;
      })(),
    );
    let waits = 0;
    for (let i = 0; i < rowCount; i++) {
      const wait = writer.writeRow(row(i));
      if (wait !== undefined) {
        waits++;
        await wait;
      }
    }
    await writer.end();
    const records = await reading;

    assert.equal(records.length, rowCount);
    for (let i = 0; i < rowCount; i++) {
      const expected = row(i).map((v) => v.replace('\n', ' '));
      expected[3] = `'${expected[3]}`;
      assert.deepEqual(records[i]!.fields, expected);
      assert.equal(records[i]!.line, i + 1);
    }
    assert.ok(waits > 0, 'backpressure was applied at least once');
    // ~64 KiB per write, not one write per row.
    const total = writeSizes.reduce((a, b) => a + b, 0);
    assert.ok(writeSizes.length < total / 60_000, `${writeSizes.length} writes for ${total} bytes`);
    assert.ok(writeSizes.slice(0, -1).every((n) => n >= 64 * 1024 && n < 66 * 1024));
  });

  it('flush writes what is buffered without ending the stream', async () => {
    const stream = new PassThrough();
    const writer = new CsvChunkWriter(stream);
    assert.equal(writer.writeRow(['a', 'b']), undefined);
    assert.equal(stream.readableLength, 0);
    await writer.flush();
    assert.equal(stream.read().toString(), 'a,b\n');
    assert.equal(stream.writableEnded, false);
    await writer.end();
    assert.equal(stream.writableFinished, true);
  });

  it('writeFormatted appends a formatted record among rows, in order', async () => {
    const stream = new PassThrough();
    const writer = new CsvChunkWriter(stream);
    await writer.writeRow(['a']);
    assert.equal(writer.writeFormatted(formatCsvRow(['=x', 'b,c'])), undefined);
    await writer.writeRow(['d']);
    await writer.end();
    assert.equal(stream.read().toString(), `a\n'=x,"b,c"\nd\n`);
  });

  it('rejects when the stream fails, and refuses writes after end', async () => {
    const failing = new Writable({
      write(_chunk, _encoding, callback) {
        callback(new Error('disk full'));
      },
    });
    const writer = new CsvChunkWriter(failing, { chunkSize: 10 });
    await assert.rejects(async () => {
      for (let i = 0; i < 100; i++) {
        const wait = writer.writeRow(['0123456789']);
        if (wait !== undefined) await wait;
        await new Promise((resolve) => setImmediate(resolve));
      }
      await writer.end();
    }, /disk full/);

    const ok = new CsvChunkWriter(new PassThrough().resume());
    await ok.end();
    assert.throws(() => ok.writeRow(['x']), /after end/);
  });

  it('rejects end() when the stream errors while finishing', async () => {
    const failing = new Writable({
      write(_chunk, _encoding, callback) {
        callback();
      },
      final(callback) {
        callback(new Error('upload failed'));
      },
    });
    const writer = new CsvChunkWriter(failing);
    assert.equal(writer.writeRow(['a']), undefined);
    await assert.rejects(writer.end(), /upload failed/);
  });
});
