import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MatchInput } from '../../matching/matcher.ts';
import { normalizeInput } from '../../matching/normalize/person.ts';
import { planShards, routeRow, ShardCounts, type ShardMap, statelessIds } from '../../voters/shard-map.ts';
import { shardRouter } from './route.ts';

const map: ShardMap = (() => {
  const counts = new ShardCounts();
  const add = (state: string, zip3: string, n: number) => {
    for (let i = 0; i < n; i++) counts.add(state, zip3);
  };
  add('NC', '275', 5);
  add('VA', '220', 5);
  add('VA', '245', 5);
  add('NC', '241', 1);
  const plan = planShards(counts, 6);
  return {
    shards: plan.shards.map((s) => ({
      ...s,
      version: `v1-x-${s.id}`,
      memoryBytes: 0,
      box: (s.state === 'NC' ? [35.7, -78.8, 35.9, -78.5] : [37.4, -77.6, 37.6, -77.3]) as [
        number,
        number,
        number,
        number,
      ],
    })),
    zip3States: plan.zip3States,
  };
})();

const asOf = new Date('2026-11-30T00:00:00Z');
const rowOf = (fields: MatchInput['fields']): MatchInput => ({ row: 1, fields });

describe('the route stage', () => {
  it('routes a row placed by its state and ZIP alone as routeRow does, and each state and ZIP once', () => {
    const router = shardRouter(map, null);
    for (const [state, zip] of [
      ['NC', '27501'],
      ['North Carolina', '22001'],
      ['NC', '25401'],
      ['va', ''],
      ['', '24501'],
      ['', ''],
    ] as const) {
      const row = rowOf({ first_name: 'ANN', last_name: 'LEE', state, zip });
      const first = router.route(row, normalizeInput(row.fields, asOf), asOf);
      const expected = routeRow(map, { state, zip, searchableAnywhere: false });
      assert.deepEqual(first, expected, `${state} ${zip}`);
      // Kept: the second row of the state and ZIP gets the same route, unchanged by the first's use.
      assert.equal(router.route(row, null, asOf), first);
    }
  });

  it('routes a row with coordinates, a phone or an id by all of them', () => {
    const router = shardRouter(map, null);
    const near = rowOf({ last_name: 'LEE', state: 'NC', zip: '27501', latitude: '37.3', longitude: '-77.5' });
    const route = router.route(near, null, asOf);
    assert.deepEqual(
      route,
      routeRow(map, {
        state: 'NC',
        zip: '27501',
        latitude: '37.3',
        longitude: '-77.5',
        searchableAnywhere: false,
      }),
    );
    assert.ok(route.shards.length > 1, 'the radius reaches the VA shards');
    // Without a directory a phone may be in any shard: only the NC row without one is placed in NC.
    const withPhone = rowOf({ last_name: 'LEE', state: 'NC', zip: '27501', phone: '9195550123' });
    const withId = rowOf({ last_name: 'LEE', state: 'NC', zip: '27501', voterbase_id: 'VA-123' });
    assert.deepEqual(
      router.route(withId, null, asOf),
      routeRow(map, {
        state: 'NC',
        zip: '27501',
        voterbaseId: 'VA-123',
        ids: statelessIds('VA-123', ''),
        searchableAnywhere: false,
      }),
    );
    assert.ok(router.route(withId, null, asOf).shards.length > 1, "the id's state is searched too");
    assert.deepEqual(
      router.route(withPhone, null, asOf),
      routeRow(map, { state: 'NC', zip: '27501', phones: ['9195550123'], searchableAnywhere: false }),
    );
  });
});
