import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAP as map } from '../../../../test/support/sharded-lists.ts';
import type { MatchInput } from '../../matching/matcher.ts';
import { normalizeInput } from '../../matching/normalize/person.ts';
import { routeRow, statelessIds } from '../../voters/shard-map.ts';
import { shardRouter } from './route.ts';

const asOf = new Date('2026-11-30T00:00:00Z');
const rowOf = (fields: MatchInput['fields']): MatchInput => ({ row: 1, fields });

describe('the route stage', () => {
  it('routes a row placed by its state and ZIP alone as routeRow does, and each state and ZIP once', () => {
    const router = shardRouter(map, null);
    for (const [state, zip, shards] of [
      ['NC', '27601', ['nc']],
      // A VA ZIP on an NC row, and one whose transposition's ZIP3 (232) is VA's.
      ['North Carolina', '23220', ['nc', 'va']],
      ['NC', '22301', ['nc', 'va']],
      ['va', '', ['va']],
      ['', '27701', ['nc']],
      // Placed by nothing and searchable nowhere else: one shard, for its outcome.
      ['', '', ['nc']],
    ] as const) {
      const row = rowOf({ first_name: 'ANN', last_name: 'LEE', state, zip });
      const first = router.route(row, normalizeInput(row.fields, asOf), asOf);
      assert.deepEqual(
        first.shards.map((i) => map.shards[i]!.id),
        shards,
        `${state} ${zip}`,
      );
      assert.deepEqual(first, routeRow(map, { state, zip, searchableAnywhere: false }));
      // Kept: the second row of the state and ZIP gets the same route, unchanged by the first's use.
      assert.equal(router.route(row, null, asOf), first);
    }
  });

  it('routes a row with coordinates, a phone or an id by all of them', () => {
    const router = shardRouter(map, null);
    const near = rowOf({ last_name: 'LEE', state: 'NC', zip: '27601', latitude: '37.0', longitude: '-77.0' });
    const route = router.route(near, null, asOf);
    assert.deepEqual(
      route,
      routeRow(map, {
        state: 'NC',
        zip: '27601',
        latitude: '37.0',
        longitude: '-77.0',
        searchableAnywhere: false,
      }),
    );
    assert.ok(route.shards.length > 1, 'the radius reaches the VA shard');
    // Without a directory a phone may be in any shard: only the NC row without one is placed in NC.
    const withPhone = rowOf({ last_name: 'LEE', state: 'NC', zip: '27601', phone: '9195550123' });
    const withId = rowOf({ last_name: 'LEE', state: 'NC', zip: '27601', voterbase_id: 'VA-123' });
    assert.deepEqual(
      router.route(withId, null, asOf),
      routeRow(map, {
        state: 'NC',
        zip: '27601',
        voterbaseId: 'VA-123',
        ids: statelessIds('VA-123', ''),
        searchableAnywhere: false,
      }),
    );
    assert.ok(router.route(withId, null, asOf).shards.length > 1, "the id's state is searched too");
    assert.deepEqual(
      router.route(withPhone, null, asOf),
      routeRow(map, { state: 'NC', zip: '27601', phones: ['9195550123'], searchableAnywhere: false }),
    );
  });
});
