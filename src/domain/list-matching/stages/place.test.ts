import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAP, NC, OPTIONS, VA } from '../../../../test/support/sharded-lists.ts';
import { buildMatchIndex } from '../../matching/index/build-match-index.ts';
import type { MatchIndex } from '../../matching/index/match-index.ts';
import { normalizeInput } from '../../matching/normalize/person.ts';
import { placeRow } from './place.ts';
import { personHomes, shardRouter } from './route.ts';

const INDEXES = [buildMatchIndex(NC), buildMatchIndex(VA)];
const router = shardRouter(MAP, null);

/** An index that fails on any use: a shard placing must not look in. */
const untouchable = new Proxy({} as MatchIndex, {
  get: (_, property) => {
    throw new Error(`the index was read (${String(property)})`);
  },
});

/** A row normalized as the match stage does, and the shards its birth date routes it to. */
function dated(fields: Record<string, string>) {
  const normalized = normalizeInput(fields, OPTIONS.asOf);
  const row = { row: 1, fields, normalized };
  return { normalized, routed: router.route(row, normalized, OPTIONS.asOf).shards };
}

describe('placeRow with the persons’ homes', () => {
  it('places a row routed everywhere by its birth date as a look in every shard does, without looking in the others', () => {
    const { normalized, routed } = dated({
      first_name: 'Margaret',
      last_name: 'Smith',
      address1: '12 Oak St',
      city: 'Raleigh',
      state: 'NC',
      zip: '27601',
      dob: '1961-04-12',
    });
    assert.deepEqual(routed, [0, 1], 'a birth date routes the row to every shard');
    assert.deepEqual(personHomes(MAP, normalized.persons[0]!), [0], 'its address and ZIP are in NC');
    const everywhere = placeRow(normalized, routed, (s) => INDEXES[s]!, router.near, null);
    const homesOnly = placeRow(
      normalized,
      routed,
      (s) => (s === 0 ? INDEXES[0]! : untouchable),
      router.near,
      null,
      router.homes,
    );
    assert.deepEqual(homesOnly, everywhere);
    // This file has no coordinates: the place is the address's voters (its weight's frequency).
    assert.deepEqual(homesOnly.normalized.persons[0]!.place, { location: null, addressVoters: 1 });
  });

  it('looks in every shard for a person without a state (its address is looked up in every state)', () => {
    const { normalized, routed } = dated({
      first_name: 'Margaret',
      last_name: 'Smith',
      address1: '9 Pine Rd',
      city: 'Richmond',
      dob: '1961-04-12',
    });
    assert.deepEqual(routed, [0, 1]);
    assert.equal(personHomes(MAP, normalized.persons[0]!), null);
    const everywhere = placeRow(normalized, routed, (s) => INDEXES[s]!, router.near, null);
    assert.deepEqual(
      placeRow(normalized, routed, (s) => INDEXES[s]!, router.near, null, router.homes),
      everywhere,
    );
    assert.equal(everywhere.normalized.persons[0]!.place?.addressVoters, 1, 'found in VA');
  });

  it('looks in the shards of a ZIP filed under another state than the row’s', () => {
    // A VA ZIP with an NC state: the ZIP's shard may hold the address's voters.
    const { normalized } = dated({
      first_name: 'Margaret',
      last_name: 'Smith',
      address1: '9 Pine Rd',
      state: 'NC',
      zip: '23220',
      dob: '1961-04-12',
    });
    assert.deepEqual(personHomes(MAP, normalized.persons[0]!), [0, 1]);
  });
});
