import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseBlock } from '../../domain/csv/csv-blocks.ts';
import { planShards, ShardCounts } from '../../domain/voters/shard-map.ts';
import { headerColumns, type SplitPlan, splitBlock } from './shard-split-blocks.ts';

const HEADER = ['voterbase_id', 'state', 'first_name', 'last_name', 'address1', 'zip'];

function plan(): SplitPlan {
  const counts = new ShardCounts();
  counts.add('NC', '275', 2);
  counts.add('VA', '220', 2);
  return {
    plan: planShards(counts, 1000),
    columns: headerColumns(HEADER),
    width: HEADER.length,
    maxRowBytes: 4096,
  };
}

describe('splitBlock (the split pass of a sharded import)', () => {
  it("writes each record to its shard's part as the voter file has it, ending in a newline", () => {
    const rows = [
      'NC-1,NC,ANN,SMITH,"1 OAK ST, APT 2",27501\r\n',
      'VA-1,VA,BOB, JONES ,2 ELM ST,22030\n',
      'NC-2,nc,CAROL,"O""HARA",3 PINE ST,27502\n',
    ];
    const split = splitBlock({ ...blockOf(rows.join('')), records: 3 }, plan());
    const text = (shard: number) => Buffer.from(split.parts.find((p) => p.shard === shard)!.bytes).toString();
    assert.equal(
      text(0),
      'NC-1,NC,ANN,SMITH,"1 OAK ST, APT 2",27501\nNC-2,nc,CAROL,"O""HARA",3 PINE ST,27502\n',
    );
    assert.equal(text(1), 'VA-1,VA,BOB, JONES ,2 ELM ST,22030\n');
    assert.deepEqual(
      split.parts.map((p) => [p.shard, [...p.lines]]),
      [
        [0, [2, 4]],
        [1, [3]],
      ],
    );
  });

  it('rejects a record with a wrong field count, quoted or not, and counts only the records it keeps', () => {
    const rows = [
      'NC-1,NC,ANN,SMITH,1 OAK ST,27501\n',
      'NC-2,NC,BOB,JONES,27501\n',
      'NC-3,NC,CAROL,LEE,3 PINE ST,27502,EXTRA\n',
      'NC-4,NC,"DAN",KIM,4 ELM ST\n',
      ' VA-1 , va ,EVE,ROE,5 ASH ST, 22030 \n',
    ];
    const split = splitBlock({ ...blockOf(rows.join('')), records: 5 }, { ...plan(), plan: null });
    assert.equal(split.records, 5);
    assert.deepEqual(split.rejected, [
      [3, 'wrong_field_count'],
      [4, 'wrong_field_count'],
      [5, 'wrong_field_count'],
    ]);
    assert.deepEqual(
      split.parts.map((p) => [p.state, [...p.lines], Buffer.from(p.bytes).toString()]),
      [
        ['NC', [2], 'NC-1,NC,ANN,SMITH,1 OAK ST,27501\n'],
        ['VA', [6], ' VA-1 , va ,EVE,ROE,5 ASH ST, 22030 \n'],
      ],
    );
    assert.deepEqual(split.counts, [
      ['NC', '275', 1],
      ['VA', '220', 1],
    ]);
  });

  it('reads the state and ZIP of a file whose header has neither, or them last, or a state not in ASCII', () => {
    const header = ['voterbase_id', 'first_name', 'last_name', 'zip', 'state'];
    const split = (text: string, columns: string[]) =>
      splitBlock(
        { ...blockOf(text), records: 1 },
        { plan: null, columns: headerColumns(columns), width: columns.length, maxRowBytes: 4096 },
      );
    assert.deepEqual(split('X-1,ANN,SMITH,27501,NC\n', header).counts, [['NC', '275', 1]]);
    assert.deepEqual(split('X-1,ANN,SMITH,27501,ÑC\n', header).counts, [['', '275', 1]]);
    assert.deepEqual(split('X-1,ANN,SMITH\n', ['voterbase_id', 'first_name', 'last_name']).counts, [
      ['', '', 1],
    ]);
  });

  it('writes the fields again of a record that would not read back on a line of its own', () => {
    const bytes = Buffer.concat([
      Buffer.from('NC-1,NC,ANN,SMITH,"1 OAK ST\nAPT 2",27501\n'),
      // Windows-1252: read as such, written as UTF-8.
      Buffer.from([...Buffer.from('NC-2,NC,REN'), 0xe9, ...Buffer.from(',SMITH,3 PINE ST,27502\n')]),
    ]);
    const split = splitBlock({ ...blockOf(bytes), records: 2 }, plan());
    const part = split.parts[0]!;
    assert.equal(
      Buffer.from(part.bytes).toString(),
      'NC-1,NC,ANN,SMITH,1 OAK ST APT 2,27501\nNC-2,NC,RENé,SMITH,3 PINE ST,27502\n',
    );
    // What the shard's build reads: the fields the split read (the line break a space, as before).
    const again = parseBlock({ bytes: part.bytes, firstLine: 2 }, HEADER.length, 4096);
    assert.deepEqual(
      again.rows.map((row) => row.fields),
      [
        ['NC-1', 'NC', 'ANN', 'SMITH', '1 OAK ST APT 2', '27501'],
        ['NC-2', 'NC', 'RENé', 'SMITH', '3 PINE ST', '27502'],
      ],
    );
  });
});

function blockOf(text: string | Buffer) {
  return {
    index: 0,
    offset: 0,
    bytes: typeof text === 'string' ? Buffer.from(text) : text,
    firstLine: 2,
    firstRow: 1,
    records: 0,
    leadingWarnings: [],
  };
}
