import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CsvBlock } from '../../domain/csv/csv-blocks.ts';
import { voterContact } from '../../domain/matching/normalize/person.ts';
import { directoryHashes } from '../../domain/voters/shard-directory.ts';
import { statelessIds } from '../../domain/voters/shard-map.ts';
import { generateVoterRows, VOTER_COLUMNS } from '../../lab/synthetic/synthetic-voters.ts';
import { prepareVoterBlock, RecordLines, type VoterBlockPlan } from './voter-blocks.ts';

const rows = [...generateVoterRows({ rows: 300, seed: 5 })].map((row) => [...row]);
const column = (name: (typeof VOTER_COLUMNS)[number]) => VOTER_COLUMNS.indexOf(name);
// Two rows the block rejects: no voterbase_id, and a field too many.
rows[7]![column('voterbase_id')] = '';
rows[11]!.push('extra');
// Every row's contact values written the way exports write them, padded and formatted.
rows[3]![column('wireless_phone')] = ' (919) 829-4432 ';
rows[3]![column('email')] = ' Ann.Lee@Example.COM';
// Names written with letters outside ASCII: two and four bytes of UTF-8 a character.
rows[4]![column('first_name')] = 'JOSÉ';
rows[5]![column('last_name')] = 'NGUYỄN 😀';

function blockOf(lines: string[][]): CsvBlock {
  const quote = (value: string) => `"${value.replaceAll('"', '""')}"`;
  const text = lines.map((line) => line.map(quote).join(',')).join('\n');
  return {
    index: 0,
    offset: 0,
    bytes: new TextEncoder().encode(`${text}\n`),
    firstLine: 2,
    firstRow: 1,
    records: lines.length,
    leadingWarnings: [],
  };
}

const plan = (contacts: boolean): VoterBlockPlan => ({
  width: VOTER_COLUMNS.length,
  columns: [...VOTER_COLUMNS],
  columnMap: VOTER_COLUMNS.map((_, i) => i),
  maxRowBytes: 1 << 16,
  ...(contacts ? { contacts } : {}),
});

describe('prepareVoterBlock', () => {
  it("with contacts, hashes each kept row's phones, e-mail and stateless ids as the shard directory files them", () => {
    const prepared = prepareVoterBlock(blockOf(rows), plan(true));
    const kept = rows.filter((_, i) => i !== 7 && i !== 11);
    assert.equal(prepared.lines.length, kept.length);
    const expected: [number, number][] = [];
    kept.forEach((row, k) => {
      const contact = voterContact({
        wireless_phone: row[column('wireless_phone')]!.trim(),
        landline_phone: row[column('landline_phone')]!,
        voip_phone: row[column('voip_phone')]!,
        email: row[column('email')]!.trim(),
      });
      const ids = statelessIds(row[column('voterbase_id')]!, row[column('exact_track')]!);
      for (const hash of directoryHashes(contact.phones, contact.email, ids)) expected.push([k, hash]);
    });
    assert.ok(expected.length > kept.length, 'the generated voters have phones, e-mails and ids');
    assert.deepEqual(
      [...prepared.contactRows].map((row, j) => [row, prepared.contactHashes[j]!]),
      expected,
    );
    // The padded, formatted phone and e-mail are hashed normalized.
    const third = expected.filter(([row]) => row === 3).map(([, hash]) => hash);
    assert.deepEqual(
      third.slice(0, 1),
      directoryHashes(['9198294432'], '').slice(0, 1),
      'the wireless phone first, as digits',
    );
    assert.ok(third.includes(directoryHashes([], 'ann.lee@example.com')[0]!));
  });

  it('without contacts, hashes none', () => {
    const prepared = prepareVoterBlock(blockOf(rows), plan(false));
    assert.equal(prepared.lines.length, rows.length - 2);
    assert.equal(prepared.contactRows.length, 0);
    assert.equal(prepared.contactHashes.length, 0);
  });
});

describe('the prepared records', () => {
  it("are the kept rows' values joined by U+001F, a line each, as UTF-8 in shared memory", () => {
    const prepared = prepareVoterBlock(blockOf(rows), plan(false));
    const kept = rows.filter((_, i) => i !== 7 && i !== 11);
    assert.ok(prepared.records.buffer instanceof SharedArrayBuffer);
    const text = new TextDecoder().decode(prepared.records);
    assert.equal(text, kept.map((row) => `${row.map((v) => v.trim()).join('\x1f')}\n`).join(''));
    assert.equal(prepared.recordBytes.length, kept.length);
    let at = 0;
    prepared.recordBytes.forEach((length, k) => {
      const line = new TextDecoder().decode(prepared.records.subarray(at, at + length));
      assert.equal(line, `${kept[k]!.map((v) => v.trim()).join('\x1f')}\n`, `line ${k}`);
      at += length;
    });
    assert.equal(at, prepared.records.length);
  });

  it('a batch larger than the scratch buffer grows it; each take starts the next batch', () => {
    const lines = new RecordLines();
    const line = (i: number) => `${i}\x1fÉ${'x'.repeat((i * 37) % 5000)}`;
    const expected: string[] = [];
    for (let i = 0; i < 400; i++) {
      lines.add(line(i));
      expected.push(`${line(i)}\n`);
    }
    assert.ok(lines.size > 512 * 1024);
    const first = lines.take();
    assert.equal(new TextDecoder().decode(first.records), expected.join(''));
    assert.deepEqual(
      [...first.recordBytes],
      expected.map((l) => Buffer.byteLength(l)),
    );
    assert.equal(lines.size, 0);
    lines.add('A');
    const second = lines.take();
    assert.equal(new TextDecoder().decode(second.records), 'A\n');
    assert.deepEqual([...second.recordBytes], [2]);
  });
});
