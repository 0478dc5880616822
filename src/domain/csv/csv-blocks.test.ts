import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { type CsvBlock, cutCsvBlocks, parseBlock } from './csv-blocks.ts';
import { type CsvRecord, type CsvWarning, MAX_BATCH_CELLS, readCsvTable } from './csv-reader.ts';

/** A small deterministic generator (xorshift), so a failing case can be replayed by its seed. */
function random(seed: number): () => number {
  let x = seed | 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

/** Hostile CSV bytes: quotes in every position, CRLF, LF and lone CR, empty lines, ragged and long rows, bad UTF-8. */
function hostileCsv(seed: number, rows: number): Buffer {
  const next = random(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
  const parts: (string | Buffer)[] = [];
  if (next() < 0.3) parts.push(Buffer.from([0xef, 0xbb, 0xbf]));
  const width = 1 + Math.floor(next() * 6);
  parts.push(`${Array.from({ length: width }, (_, i) => `col${i}`).join(',')}${pick(['\n', '\r\n'])}`);
  const cells = [
    'a',
    'Smith',
    '',
    '"quoted, comma"',
    '"multi\nline"',
    '"mac\rline"',
    'x"y',
    '"a""b"',
    '"open',
    'é',
    ' ',
    '"x"tail',
  ];
  for (let r = 0; r < rows; r++) {
    const roll = next();
    if (roll < 0.05) parts.push(pick(['\n', '\r\n', '\r\r\n']));
    else if (roll < 0.08) parts.push(Buffer.from([0x41, 0xe9, 0x42, 0x2c, 0x43, 0x0a]));
    else if (roll < 0.1) parts.push(`${'L'.repeat(300 + Math.floor(next() * 200))}\n`);
    else {
      const n = Math.max(1, width + Math.floor(next() * 3) - 1);
      const row = Array.from({ length: n }, () => pick(cells)).join(',');
      parts.push(`${row}${pick(['\n', '\r\n', '\n', '\r'])}`);
    }
  }
  if (next() < 0.5) parts.push('last,row,without,newline');
  return Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));
}

function chunked(bytes: Buffer, sizes: () => number): Readable {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; ) {
    const size = Math.max(1, sizes());
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  return Readable.from(chunks);
}

const MAX_ROW = 400;

async function readWhole(bytes: Buffer, maxRowBytes = MAX_ROW) {
  const warnings: CsvWarning[] = [];
  let header: string[] | null = null;
  const rows: CsvRecord[] = [];
  for await (const event of readCsvTable(
    chunked(bytes, () => 64 * 1024),
    {
      maxRowBytes,
      onWarning: (w) => warnings.push(w),
    },
  )) {
    if (event.kind === 'header') header = event.header;
    else {
      rows.push(...event.rows);
    }
  }
  return { header, rows, warnings };
}

async function readBlocks(bytes: Buffer, sizes: () => number, blockBytes: number, maxRowBytes = MAX_ROW) {
  const warnings: CsvWarning[] = [];
  let header: string[] | null = null;
  const rows: CsvRecord[] = [];
  const blocks: CsvBlock[] = [];
  for await (const event of cutCsvBlocks(chunked(bytes, sizes), { maxRowBytes, blockBytes })) {
    if (event.kind === 'header') {
      header = event.header;
      warnings.push(...event.warnings);
    } else if (event.kind === 'end') warnings.push(...event.warnings);
    else {
      const { block } = event;
      blocks.push(block);
      warnings.push(...block.leadingWarnings);
      const parsed = parseBlock(block, header!.length, maxRowBytes);
      assert.equal(
        parsed.rows.length,
        block.records,
        `block ${block.index} holds the records it was cut with`,
      );
      assert.equal(block.firstRow, rows.length + 1, `block ${block.index} starts at the next data row`);
      rows.push(...parsed.rows);
      warnings.push(...parsed.warnings);
    }
  }
  return { header, rows, warnings, blocks };
}

const byLine = (a: CsvWarning, b: CsvWarning) =>
  a.line - b.line || a.kind.localeCompare(b.kind) || a.message.localeCompare(b.message);

describe('cutCsvBlocks + parseBlock', () => {
  it('read every hostile file exactly as readCsvTable does, whatever the chunks and block size', async () => {
    for (let seed = 1; seed <= 60; seed++) {
      const bytes = hostileCsv(seed, 50 + seed * 7);
      const whole = await readWhole(bytes);
      const next = random(seed * 31);
      for (const [chunkSizes, blockBytes] of [
        [() => 1 + Math.floor(next() * 7), 64],
        [() => 1 + Math.floor(next() * 500), 512],
        [() => bytes.length, 1 << 20],
      ] as const) {
        const blocks = await readBlocks(bytes, chunkSizes, blockBytes);
        assert.deepEqual(blocks.header, whole.header, `seed ${seed}: header`);
        assert.deepEqual(blocks.rows, whole.rows, `seed ${seed}: records, fields and lines`);
        assert.deepEqual(
          [...blocks.warnings].sort(byLine),
          [...whole.warnings].sort(byLine),
          `seed ${seed}: warnings`,
        );
      }
    }
  });

  it('keep each record as read where it reads back alone as the same fields (keepBytes)', async () => {
    let kept = 0;
    let written = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const bytes = hostileCsv(seed, 50 + seed * 7);
      let width = 0;
      for await (const event of cutCsvBlocks(
        chunked(bytes, () => 97),
        { maxRowBytes: MAX_ROW, blockBytes: 512 },
      )) {
        if (event.kind === 'header') width = event.header.length;
        if (event.kind !== 'block') continue;
        const parsed = parseBlock(event.block, width, MAX_ROW, true);
        // Keeping the bytes changes nothing of what is read.
        assert.deepEqual(parsed.rows, parseBlock(event.block, width, MAX_ROW).rows, `seed ${seed}`);
        parsed.rows.forEach((row, i) => {
          const record = parsed.recordBytes(i);
          if (record === null) {
            written++;
            return;
          }
          kept++;
          const again = parseBlock(
            { bytes: Buffer.concat([record, Buffer.from('\n')]), firstLine: 1 },
            width,
            MAX_ROW,
          );
          assert.deepEqual(
            again.warnings.filter((warning) => warning.kind !== 'ragged_row'),
            [],
            `seed ${seed}, line ${row.line}`,
          );
          assert.deepEqual(
            again.rows.map((r) => r.fields),
            [row.fields],
            `seed ${seed}, line ${row.line}`,
          );
        });
      }
    }
    assert.ok(kept > 1000 && written > 50, `${kept} kept, ${written} to write as fields`);
  });

  it('keep no bytes of a record with a line break in a cell, bad UTF-8 or broken quoting', () => {
    const bytes = Buffer.concat([
      Buffer.from('a,b\r\n"x, y",z\n"multi\nline",q\n"mac\rline",q\n'),
      Buffer.from([0x41, 0xe9, 0x2c, 0x42, 0x0a]),
      Buffer.from('"x"tail,w\n"a""b",c\nlast,row'),
    ]);
    const parsed = parseBlock({ bytes, firstLine: 2 }, 2, MAX_ROW, true);
    assert.deepEqual(
      parsed.rows.map((_, i) => parsed.recordBytes(i)?.toString() ?? null),
      ['a,b', '"x, y",z', null, null, null, null, '"a""b",c', 'last,row'],
    );
    // Without keepBytes nothing is kept.
    assert.equal(parseBlock({ bytes, firstLine: 2 }, 2, MAX_ROW).recordBytes(0), null);
  });

  it('say where each block starts in the stream, whatever the chunks', async () => {
    for (const seed of [3, 5, 8]) {
      const bytes = hostileCsv(seed, 6000);
      // No record over the limit here: the blocks then tile the file after the header.
      const blocks = await readBlocks(bytes, () => 1 + ((seed * 977) % 5000), 4096, 1024);
      assert.ok(blocks.blocks.length > 3, `seed ${seed}: several blocks`);
      for (const [i, block] of blocks.blocks.entries()) {
        const at = bytes.subarray(block.offset, block.offset + block.bytes.byteLength);
        assert.ok(
          at.equals(Buffer.from(block.bytes)),
          `seed ${seed}: block ${i} is the file's bytes at its offset`,
        );
        const next = blocks.blocks[i + 1];
        if (next)
          assert.equal(
            next.offset,
            block.offset + block.bytes.byteLength,
            `seed ${seed}: block ${i + 1} follows`,
          );
        else {
          const rest = bytes.subarray(block.offset + block.bytes.byteLength).toString('latin1');
          assert.match(rest, /^[\r\n]*$/, `seed ${seed}: only empty lines follow the last block`);
        }
      }
    }
  });

  it('keep a block of short rows under a wide header within MAX_BATCH_CELLS cells once padded', async () => {
    const width = 901;
    const bytes = Buffer.from(`h${',c'.repeat(width - 1)}\n${'1\n'.repeat(20_000)}`);
    const blocks = await readBlocks(bytes, () => 64 * 1024, 64 * 1024, 8192);
    const most = Math.floor(MAX_BATCH_CELLS / width);
    assert.ok(blocks.blocks.length >= Math.ceil(20_000 / most), 'cut by cells, not bytes');
    for (const block of blocks.blocks)
      assert.ok(block.records <= most, `block ${block.index}: ${block.records} rows`);
    assert.equal(blocks.rows.length, 20_000);
  });

  it('skip a record that streams past the limit without keeping its bytes', async () => {
    const huge = Buffer.concat([
      Buffer.from('a,b\n1,2\n'),
      Buffer.alloc(5_000_000, 0x78),
      Buffer.from('\n3,4\n'),
    ]);
    const blocks = await readBlocks(huge, () => 64 * 1024, 4096);
    assert.deepEqual(
      blocks.rows.map((r) => [r.line, r.fields]),
      [
        [2, ['1', '2']],
        [4, ['3', '4']],
      ],
    );
    assert.deepEqual(
      blocks.warnings.map((w) => w.kind),
      ['row_too_long'],
    );
    assert.ok(
      blocks.blocks.every((b) => b.bytes.byteLength < 100),
      'no block holds the long record',
    );
  });

  it('yield nothing for an empty file and a header alone for a header-only file', async () => {
    assert.deepEqual((await readBlocks(Buffer.alloc(0), () => 10, 64)).header, null);
    const only = await readBlocks(Buffer.from('\ufeffa,b\r\n\r\n'), () => 2, 64);
    assert.deepEqual(only.header, ['a', 'b']);
    assert.deepEqual(only.blocks, []);
  });
});
