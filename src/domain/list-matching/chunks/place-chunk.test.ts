import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ShardPlace } from '../../matching/candidates/row-place.ts';
import type { MatchIndex } from '../../matching/index/match-index.ts';
import { inputOfLine } from '../chunk-lines.ts';
import { combinePlaces, type LineSink, placedLines } from './place-chunk.ts';

async function* from(lines: readonly string[]): AsyncGenerator<string> {
  for (const line of lines) yield line;
}

async function collect(lines: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const line of lines) out.push(line);
  return out;
}

/** A sink that keeps its lines. */
function sink(): LineSink & { lines: string[] } {
  const lines: string[] = [];
  return { lines, write: (line) => lines.push(line), ready: async () => {} };
}

const part = (order: number | null, zip: [number, number] | null, voters: number): ShardPlace => ({
  address: order === null ? null : { lat: 36 + order / 100, lon: -79, order },
  zip: zip === null ? null : { lat: zip[0], lon: zip[1] },
  addressVoters: voters,
});

describe('placing the queue chunks', () => {
  it("joins a chunk's places to its rows, read as the match stage places a row in one process", async () => {
    const lines = await collect(
      placedLines(
        from(['{"r":1,"f":{"first_name":"ANN","zip":"27320"}}', '{"r":2,"f":{"first_name":"BO"}}']),
        from(['{"r":1,"m":1,"p":[{"location":{"lat":36.4,"lon":-79.4,"source":"zip"},"addressVoters":3}]}']),
      ),
    );
    assert.equal(lines[1], '{"r":2,"f":{"first_name":"BO"}}');
    const row = inputOfLine(lines[0]!, new Date('2026-01-01'));
    assert.equal(row.swap, 'both');
    assert.deepEqual(row.normalized?.persons[0]?.place, {
      location: { lat: 36.4, lon: -79.4, source: 'zip' },
      addressVoters: 3,
    });
    // A row with places read without the run's date cannot be normalized: it says so.
    assert.throws(() => inputOfLine(lines[0]!), /without the run's date/);
  });

  it('closes the places when its reader stops early (the evidence step, at the end of the sample)', async () => {
    let closed = false;
    async function* places(): AsyncGenerator<string> {
      try {
        yield '{"r":1,"p":[null]}';
        yield '{"r":2,"p":[null]}';
      } finally {
        closed = true;
      }
    }
    for await (const line of placedLines(from(['{"r":1,"f":{}}', '{"r":2,"f":{}}']), places())) {
      assert.equal(line, '{"r":1,"f":{},"p":[null]}');
      break;
    }
    assert.ok(closed);
  });

  it('refuses places of a row the chunk does not hold, before or after its rows', async () => {
    await assert.rejects(
      collect(placedLines(from(['{"r":2,"f":{}}']), from(['{"r":1,"p":[null]}']))),
      /places hold row 1, which it does not/,
    );
    await assert.rejects(
      collect(placedLines(from(['{"r":2,"f":{}}']), from(['{"r":2,"p":[null]}', '{"r":5,"p":[null]}']))),
      /places hold row 5/,
    );
  });

  it('places a row of several shards over them all, and sends a row whose radius reaches another shard there', async () => {
    // Chunks nc, nc.1 (shard 0) and va (shard 1). Row 3 is in both shards: its address voter
    // first in the file is VA's (order 5), its ZIP centroid NC's, its address voters summed.
    // Row 7 is NC's alone and reaches VA. Row 9 is in both; its second person has no place.
    const parts: Record<string, string[]> = {
      nc: [JSON.stringify({ r: 3, s: [part(40, [36.4, -79.4], 2)], m: 1 })],
      'nc.1': [
        JSON.stringify({ r: 7, s: [part(12, null, 1)], n: [0, 1], f: { first_name: 'JOHN', zip: '27320' } }),
        JSON.stringify({ r: 9, s: [part(null, [36, -80], 0), null], m: 1 }),
      ],
      va: [
        JSON.stringify({ r: 3, s: [part(5, null, 1)], m: 1 }),
        JSON.stringify({ r: 9, s: [part(null, null, 4), null], m: 1 }),
      ],
    };
    const places = { nc: sink(), 'nc.1': sink(), va: sink() };
    const reach = [sink(), sink()];
    const result = await combinePlaces({
      chunks: [
        { name: 'nc', shard: 0 },
        { name: 'nc.1', shard: 0 },
        { name: 'va', shard: 1 },
      ],
      partsOf: (chunk) => from(parts[chunk]!),
      places: (chunk) => places[chunk as keyof typeof places],
      reach: (shard) => reach[shard]!,
      ready: async () => {},
      radius: null,
    });
    const row3 = `{"r":3,"p":[{"location":{"lat":36.05,"lon":-79,"source":"address"},"addressVoters":3}]}\n`;
    assert.deepEqual(places.nc.lines, [row3]);
    const row9 = `{"r":9,"p":[{"location":{"lat":36,"lon":-80,"source":"zip"},"addressVoters":4},null]}\n`;
    assert.deepEqual(places['nc.1'].lines, [
      `{"r":7,"m":1,"p":[{"location":{"lat":36.12,"lon":-79,"source":"address"},"addressVoters":1}]}\n`,
      row9,
    ]);
    assert.deepEqual(places.va.lines, [row3, row9]);
    assert.deepEqual(reach[0]!.lines, []);
    assert.deepEqual(reach[1]!.lines, [
      `{"r":7,"f":{"first_name":"JOHN","zip":"27320"},"m":1,"p":[{"location":{"lat":36.12,"lon":-79,"source":"address"},"addressVoters":1}]}\n`,
    ]);
    assert.deepEqual([...result.reached], [[1, 7]]);
    assert.equal(result.placedRows, 2);
    assert.equal(result.reachRows, 1);
  });

  it('sends a row of several shards to the shards its radius reaches from its place over them', async () => {
    // Row 4 is routed to shards 0 and 1 (its state's); its place (shard 1's address voter) is near
    // shard 2 too. Row 6, in both, has a place nowhere: it reaches nothing.
    const cells = { first_name: 'JOHN', last_name: 'QUIXLEY', state: 'NC' };
    const parts: Record<string, string[]> = {
      a: [
        JSON.stringify({ r: 4, s: [part(null, null, 0)], m: 1 }),
        JSON.stringify({ r: 6, s: [part(null, null, 0)], m: 1 }),
      ],
      b: [
        JSON.stringify({ r: 4, s: [part(9, null, 1)], m: 1, f: cells }),
        JSON.stringify({ r: 6, s: [part(null, null, 0)], m: 1 }),
      ],
    };
    const places = { a: sink(), b: sink() };
    const reach = [sink(), sink(), sink()];
    const asked: [number, number, number][] = [];
    const result = await combinePlaces({
      chunks: [
        { name: 'a', shard: 0 },
        { name: 'b', shard: 1 },
      ],
      partsOf: (chunk) => from(parts[chunk]!),
      places: (chunk) => places[chunk as keyof typeof places],
      reach: (shard) => reach[shard]!,
      ready: async () => {},
      radius: {
        // A fixed radius: the index (for the dynamic one) is not read.
        index: null as unknown as MatchIndex,
        near: (lat, lon, miles) => {
          asked.push([lat, lon, miles]);
          return [1, 2];
        },
        miles: 10,
        asOf: new Date('2026-01-01'),
      },
    });
    const place = `[{"location":{"lat":36.09,"lon":-79,"source":"address"},"addressVoters":1}]`;
    assert.deepEqual(places.a.lines, [
      `{"r":4,"p":${place}}\n`,
      `{"r":6,"p":[{"location":null,"addressVoters":0}]}\n`,
    ]);
    assert.deepEqual(places.b.lines, places.a.lines);
    assert.deepEqual(asked, [[36.09, -79, 10]]);
    assert.deepEqual(reach[2]!.lines, [`{"r":4,"f":${JSON.stringify(cells)},"m":1,"p":${place}}\n`]);
    assert.deepEqual([reach[0]!.lines, reach[1]!.lines], [[], []]);
    assert.deepEqual([...result.reached], [[2, 4]]);
  });
});
