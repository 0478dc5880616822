import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { zipTranspositions } from '../matching/compare/zip-transposition.ts';
import { hashString } from '../matching/index/hashing.ts';
import { directoryHashes, ShardDirectory, ShardDirectoryBuilder } from './shard-directory.ts';
import {
  planShards,
  type Route,
  recordShardKey,
  routeRow,
  ShardCounts,
  type ShardMap,
  shardOfRecord,
  statelessIds,
  zip3sOf,
} from './shard-map.ts';

function counts(entries: [string, string, number][]): ShardCounts {
  const c = new ShardCounts();
  for (const [state, zip3, n] of entries) for (let i = 0; i < n; i++) c.add(state, zip3);
  return c;
}

const asMap = (plan: ReturnType<typeof planShards>): ShardMap => ({
  shards: plan.shards.map((s) => ({
    ...s,
    version: `v1-x-${s.id}`,
    memoryBytes: 0,
    // NC voters around Raleigh, VA voters around Richmond: 140 miles apart.
    box: (s.state === 'NC' ? [35.7, -78.8, 35.9, -78.5] : [37.4, -77.6, 37.6, -77.3]) as [
      number,
      number,
      number,
      number,
    ],
  })),
  zip3States: plan.zip3States,
});

describe('planShards', () => {
  it('makes one shard per state under the limit, in state order, and one for records without a state', () => {
    const plan = planShards(
      counts([
        ['OH', '430', 5],
        ['NC', '275', 3],
        ['', '', 2],
      ]),
      10,
    );
    assert.deepEqual(
      plan.shards.map((s) => [s.id, s.state, s.rows, s.zip3From]),
      [
        ['none', '', 2, ''],
        ['nc', 'NC', 3, ''],
        ['oh', 'OH', 5, ''],
      ],
    );
    assert.deepEqual(plan.zip3States, { '275': ['NC'], '430': ['OH'] });
  });

  it('cuts a state over the limit into consecutive ZIP3 ranges; records without a ZIP join the first', () => {
    const plan = planShards(
      counts([
        ['CA', '900', 4],
        ['CA', '901', 4],
        ['CA', '945', 4],
        ['CA', '960', 30],
        ['CA', '', 1],
      ]),
      10,
    );
    assert.deepEqual(
      plan.shards.map((s) => [s.id, s.zip3From, s.zip3To, s.rows]),
      [
        ['ca-1', '900', '901', 9],
        ['ca-2', '945', '945', 4],
        // One ZIP3 is never cut, even above the limit.
        ['ca-3', '960', '960', 30],
      ],
    );
    assert.equal(shardOfRecord(plan, 'CA', '901'), 0);
    assert.equal(shardOfRecord(plan, 'CA', '945'), 1);
    assert.equal(shardOfRecord(plan, 'CA', '960'), 2);
    assert.equal(shardOfRecord(plan, 'CA', ''), 0);
    // A ZIP3 between ranges (not counted: cannot happen in the planned file) goes to the first.
    assert.equal(shardOfRecord(plan, 'CA', '950'), 0);
  });

  it('normalizes the record values it keys on', () => {
    assert.deepEqual(recordShardKey('North Carolina', '27601-1234'), { state: 'NC', zip3: '276' });
    assert.deepEqual(recordShardKey('XX', 'abc'), { state: '', zip3: '' });
  });
});

describe('routeRow', () => {
  const map = asMap(
    planShards(
      counts([
        ['NC', '275', 5],
        ['VA', '220', 5],
        ['VA', '245', 5],
        ['VA', '241', 1],
        ['NC', '241', 1],
      ]),
      6,
    ),
  );
  const ids = (route: Route) => route.shards.map((i) => map.shards[i]!.id);

  it('sends a row to every shard of its state', () => {
    assert.deepEqual(ids(routeRow(map, { state: 'va' })), ['va-1', 'va-2']);
    assert.deepEqual(ids(routeRow(map, { state: 'North Carolina', zip: '27501' })), ['nc']);
  });

  it("adds the shard holding the ZIP's ZIP3 in another state, and those of its transpositions", () => {
    // A VA ZIP on an NC row: the ZIP's keys list its VA voters in the whole file.
    assert.deepEqual(ids(routeRow(map, { state: 'North Carolina', zip: '22001' })), ['nc', 'va-1']);
    // 25401 is 24501 with two digits swapped: ZIP3 245 is va-2's.
    assert.deepEqual(ids(routeRow(map, { state: 'NC', zip: '25401' })), ['nc', 'va-2']);
  });

  it("adds the shards a radius search around the row's coordinates reaches, across its state's line", () => {
    // 37.3°N is within 25 miles of VA's voters (from 37.4°N); 35.8°N is not.
    assert.deepEqual(ids(routeRow(map, { state: 'NC', latitude: '37.3', longitude: '-77.5' })), [
      'nc',
      'va-1',
      'va-2',
    ]);
    assert.deepEqual(ids(routeRow(map, { state: 'NC', latitude: '35.8', longitude: '-78.6' })), ['nc']);
  });

  it('sends a row with keys naming no place (a birth date, an address without a state) to every shard', () => {
    const route = routeRow(map, { state: 'NC', zip: '27501', placeFreeKeys: true });
    assert.deepEqual(ids(route), ['nc', 'va-1', 'va-2']);
    assert.equal(route.everywhere, false, 'placed, and sent everywhere for its keys');
  });

  it('uses the states its ZIP3 has in the voter file when it has no state', () => {
    assert.deepEqual(ids(routeRow(map, { zip: '27513' })), ['nc']);
    assert.deepEqual(ids(routeRow(map, { zip: '24101' })), ['nc', 'va-1']);
  });

  it('adds the state a voterbase_id names, and sends a row naming no state of the file everywhere', () => {
    assert.deepEqual(ids(routeRow(map, { state: 'NC', voterbaseId: 'va-123' })), ['nc', 'va-1', 'va-2']);
    assert.deepEqual(ids(routeRow(map, {})), ['nc', 'va-1', 'va-2']);
    assert.deepEqual(ids(routeRow(map, { state: 'TX' })), ['nc', 'va-1', 'va-2']);
    assert.deepEqual(ids(routeRow(map, { state: 'zz', zip: '999' })), ['nc', 'va-1', 'va-2']);
  });

  it('builds the directory sorted by hash then shard, each entry once; its file form in pieces the same bytes', () => {
    let x = 7;
    const next = () => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return x >>> 0;
    };
    // Begun small: the entries grow its arrays several times.
    const builder = new ShardDirectoryBuilder(100);
    const twin = new ShardDirectoryBuilder();
    const entries: [number, number][] = [];
    for (let i = 0; i < 70_000; i++) {
      // Repeats, and hashes of the whole 32-bit range.
      const hash = i % 7 === 0 && entries.length > 0 ? entries[next() % entries.length]![0] : next();
      const shard = next() % 300;
      entries.push([hash, shard]);
      builder.addHashes(shard, [hash]);
      twin.addHashes(shard, [hash]);
    }
    const expected = [...new Set(entries.map(([h, s]) => h * 65_536 + s))].sort((a, b) => a - b);
    const built = builder.build();
    const keys = Array.from(built.entries(), ([hash, shard]) => hash * 65_536 + shard);
    // Compared as text: a diff of two 60,000-entry arrays takes minutes to print.
    assert.equal(keys.length, expected.length);
    assert.ok(
      keys.join() === expected.join(),
      `first difference at ${keys.findIndex((key, i) => key !== expected[i])}`,
    );
    assert.ok(expected.length < entries.length, 'the test holds repeats');
    assert.ok(built.parts.shards instanceof Uint16Array, 'shard numbers past a byte');
    // Pieces of odd sizes, so that runs end inside the hashes and the shards.
    const pieces = [...twin.fileChunks(1_000)];
    assert.ok(pieces.length > 100);
    assert.ok(Buffer.concat(pieces).equals(Buffer.from(built.toBytes())));
    assert.equal(twin.build().size, 0, 'the builder is used up');
  });

  it('sorts entries whose hashes share their top bytes by the rest and by shard', () => {
    // Every range holds more entries than an insertion sort takes, down to the shard's bytes.
    const builder = new ShardDirectoryBuilder();
    const expected: number[] = [];
    for (let i = 0; i < 20_000; i++) {
      const hash = 0xabcdef00 + ((i * 7) % 3);
      const shard = (i * 7919) % 600;
      builder.addHashes(shard, [hash]);
      expected.push(hash * 65_536 + shard);
    }
    const sorted = [...new Set(expected)].sort((a, b) => a - b);
    const built = builder.build();
    assert.equal(built.size, sorted.length);
    assert.ok(Array.from(built.entries(), ([hash, shard]) => hash * 65_536 + shard).join() === sorted.join());
  });

  it('finds every entry, at the ends of each half of the hash, with shards of a byte', () => {
    const hashes = [
      0, 1, 0xffff, 0x10000, 0x1ffff, 0x7fffffff, 0x80000000, 0xfffeffff, 0xffff0000, 0xffffffff,
    ];
    const entries = hashes
      .flatMap((hash, i) => [
        [hash, i],
        [hash, 200 - i],
      ])
      .sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
    const directory = ShardDirectory.fromSorted(
      entries.length,
      (i) => entries[i]![0]!,
      (i) => entries[i]![1]!,
    );
    assert.ok(directory.parts.shards instanceof Uint8Array);
    // Through the file form too.
    for (const read of [directory, ShardDirectory.fromBytes(directory.toBytes())]) {
      hashes.forEach((hash, i) => {
        const out = new Set<number>();
        read.hashShards(hash, out);
        assert.deepEqual([...out], [i, 200 - i], `hash ${hash}`);
      });
      for (const absent of [2, 0xfffe, 0x10001, 0xfffffffe]) {
        const out = new Set<number>();
        read.hashShards(absent, out);
        assert.equal(out.size, 0, `hash ${absent}`);
      }
    }
  });

  it('refuses a directory file whose hashes are out of order by their high halves', () => {
    const bytes = ShardDirectory.fromSorted(
      2,
      (i) => [5, 0x10009][i]!,
      () => 0,
    ).toBytes();
    new DataView(bytes.buffer).setUint32(12, 0x20000, true);
    assert.throws(() => ShardDirectory.fromBytes(bytes), /not sorted/);
    assert.throws(
      () =>
        ShardDirectory.fromSorted(
          2,
          (i) => [9, 5][i]!,
          () => 0,
        ),
      /not sorted/,
    );
  });

  it("hashes a record's phones, e-mail and ids as the strings its file format names (p, e, i…|…)", () => {
    // The format's definition: a directory written before must still be read, so these numbers
    // may not change (directoryHashes is also made apart from the directory, by voter-blocks.ts).
    const values = ['9195550100', 'ann@example.com', 'ÅSA.Ö@example.org', '', 'x', '😀|9'];
    for (const a of values) {
      for (const b of values) {
        const phones = a === '' ? [] : [a, `${a}1`];
        const ids = [{ index: 'exact_track', key: b }];
        assert.deepEqual(directoryHashes(phones, b, ids), [
          ...phones.map((phone) => hashString(`p${phone}`) >>> 0),
          ...(b === '' ? [] : [hashString(`e${b}`) >>> 0]),
          hashString(`iexact_track|${b}`) >>> 0,
        ]);
      }
    }
  });

  it('refuses a shard number past 16 bits', () => {
    assert.throws(() => new ShardDirectoryBuilder().addHashes(65_536, [1]), /16 bits/);
  });

  describe('with a directory of phones and e-mails', () => {
    const nc = map.shards.findIndex((s) => s.id === 'nc');
    const va2 = map.shards.findIndex((s) => s.id === 'va-2');
    const builder = new ShardDirectoryBuilder();
    builder.add(nc, ['9195550100'], 'ann@example.com');
    builder.add(va2, ['5405550199'], '');
    builder.add(nc, ['5405550199'], ''); // a shared number: both voters' shards
    const directory = builder.build();

    it('sends a row placed only by its phone or e-mail to the shards that hold them', () => {
      assert.deepEqual(ids(routeRow(map, { phones: ['9195550100'] }, directory)), ['nc']);
      assert.deepEqual(ids(routeRow(map, { emails: ['ann@example.com'] }, directory)), ['nc']);
      assert.deepEqual(ids(routeRow(map, { phones: ['5405550199'] }, directory)), ['nc', 'va-2']);
      assert.equal(routeRow(map, { phones: ['9195550100'] }, directory).everywhere, false);
    });

    it('adds the shard of a contact found in another state (someone who moved)', () => {
      assert.deepEqual(ids(routeRow(map, { state: 'VA', phones: ['9195550100'] }, directory)), [
        'nc',
        'va-1',
        'va-2',
      ]);
    });

    it('places a row whose contact is nowhere by its coordinates, else everywhere, and says so', () => {
      const nowhere = routeRow(map, { phones: ['2125550000'] }, directory);
      assert.deepEqual(ids(nowhere), ['nc', 'va-1', 'va-2']);
      assert.equal(nowhere.everywhere, true);
      assert.equal(routeRow(map, { state: 'NC' }, directory).everywhere, false);
    });

    it('sends a row that could find no candidate anywhere to one shard only, for its outcome', () => {
      const route = routeRow(map, { phones: ['2125550000'], searchableAnywhere: false }, directory);
      assert.deepEqual(ids(route), ['nc']);
      assert.equal(route.everywhere, false);
      assert.equal(
        routeRow(map, { phones: ['2125550000'], searchableAnywhere: true }, directory).everywhere,
        true,
      );
    });

    it('finds an exact_track or a voterbase_id without a state prefix through the directory', () => {
      const ids = new ShardDirectoryBuilder();
      ids.add(va2, [], '', statelessIds('X123', 'et0001'));
      ids.add(nc, [], '', statelessIds('NC-77', ''));
      const built = ids.build();
      assert.equal(built.size, 2, 'the prefixed voterbase_id needs no entry');
      const route = (values: Parameters<typeof routeRow>[1]) =>
        routeRow(map, values, built).shards.map((i) => map.shards[i]!.id);
      assert.deepEqual(route({ ids: statelessIds('', 'ET0001') }), ['va-2']);
      assert.deepEqual(route({ ids: statelessIds(' x123 ', '') }), ['va-2']);
      assert.deepEqual(route({ voterbaseId: 'NC-77', ids: statelessIds('NC-77', '') }), ['nc']);
      assert.deepEqual(statelessIds('NC-77', ''), []);
    });

    it('without a directory, a row with a contact and no state still goes everywhere', () => {
      const route = routeRow(map, { phones: ['9195550100'] });
      assert.deepEqual(ids(route), ['nc', 'va-1', 'va-2']);
      assert.equal(route.everywhere, true);
    });

    it('round-trips through its file form, and refuses a damaged one', () => {
      const again = ShardDirectory.fromBytes(directory.toBytes());
      assert.deepEqual([...again.entries()], [...directory.entries()]);
      assert.equal(directory.size, 4);
      assert.throws(() => ShardDirectory.fromBytes(directory.toBytes().subarray(0, 20)), /truncated/);
      assert.throws(() => ShardDirectory.fromBytes(new Uint8Array(16)), /not a shard directory/);
    });
  });
});

describe('zip3sOf', () => {
  it('gives the ZIP3s of a ZIP and of every transposition zipTranspositions makes of it', () => {
    // Every ZIP3 pattern: equal and different neighbouring digits, leading zeros.
    const zips = ['27601', '11111', '00501', '12345', '21345', '99899', '10010', '27061', '09870'];
    for (let n = 0; n < 2000; n++) zips.push(String((n * 7919 + 13) % 100_000).padStart(5, '0'));
    for (const zip of zips) {
      const expected = new Set([zip.slice(0, 3)]);
      for (const typo of zipTranspositions(Number(zip)))
        expected.add(String(typo).padStart(5, '0').slice(0, 3));
      assert.deepEqual(new Set(zip3sOf(zip)), expected, zip);
      assert.equal(zip3sOf(zip).length, expected.size, `${zip}: each ZIP3 once`);
    }
  });
});
