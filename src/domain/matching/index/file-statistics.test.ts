import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { generateVoterRows, VOTER_COLUMNS } from '../../../lab/synthetic/voters/voter-generator.ts';
import { CandidateSet } from '../candidates/candidate-set.ts';
import {
  DEFAULT_CANDIDATE_OPTIONS,
  dynamicRadius,
  generateCandidates,
} from '../candidates/generate-candidates.ts';
import { filePlace, shardPlace } from '../candidates/row-place.ts';
import { type NormalizedPerson, voterNormalizer } from '../normalize/person.ts';
import { prepareQuery } from '../score/compare-person.ts';
import { buildModel, priorM } from '../score/fellegi-sunter.ts';
import { FileRandomPairSample } from '../score/file-random-pair-u.ts';
import { estimateRandomPairU, voterAsPerson } from '../score/random-pair-u.ts';
import { scoreCandidates } from '../score/score-candidates.ts';
import { selectMatches } from '../select/select-matches.ts';
import { cellOf } from './blocking-keys.ts';
import { voterFieldReader } from './build-match-index.ts';
import { FILE_POSTINGS_FLOOR, FileStatisticsCount, withFileStatistics } from './file-statistics.ts';
import { type MatchIndex, MatchIndexBuilder } from './match-index.ts';
import { matchIndexFromParts, matchIndexParts, SHARD_MATCH_INDEX_FORMAT } from './match-index-parts.ts';

const asOf = new Date('2026-01-01T00:00:00Z');
const rows = [...generateVoterRows({ rows: 6000, seed: 31 })];
const read = voterFieldReader(VOTER_COLUMNS);
const normalize = voterNormalizer(asOf);
const persons = rows.map((row) => normalize(read(row)));

function indexOf(voters: readonly NormalizedPerson[]): MatchIndex {
  const builder = new MatchIndexBuilder();
  voters.forEach((person, i) => {
    builder.add(i, person);
  });
  return builder.finish();
}

/** The file's records split by `shardOf` (records in file order), each shard's index as built. */
function builtShards(
  shardOf: (person: NormalizedPerson, i: number) => string,
  file: readonly NormalizedPerson[] = persons,
): {
  index: MatchIndex;
  positions: number[];
}[] {
  const byShard = new Map<string, number[]>();
  file.forEach((person, i) => {
    const own = byShard.get(shardOf(person, i)) ?? [];
    own.push(i);
    byShard.set(shardOf(person, i), own);
  });
  return [...byShard.values()].map((positions) => ({
    index: indexOf(positions.map((i) => file[i]!)),
    positions,
  }));
}

/** The whole file's statistics counted from its shards, as an import does (two passes). */
function countFile(built: readonly { index: MatchIndex; positions: number[] }[]): FileStatisticsCount {
  const count = new FileStatisticsCount(built.length);
  for (const { index, positions } of built) count.add(index.data, Uint32Array.from(positions));
  for (const { index } of built) count.countPostings(index.data.postings);
  return count;
}

/** The file as shards (by state), each given the file's statistics as an import does. */
function shardsOf(
  built = builtShards((person) => person.state),
): { index: MatchIndex; positions: number[] }[] {
  const whole = countFile(built).finish();
  return built.map(({ index, positions }) => {
    const data = withFileStatistics(index.data, whole, Uint32Array.from(positions));
    // Through the stored form, as a worker loads it.
    const { meta, parts } = matchIndexParts({ data });
    assert.equal(meta.format, SHARD_MATCH_INDEX_FORMAT);
    return { index: matchIndexFromParts(meta, (name) => parts.get(name)!), positions };
  });
}

/** Queries with fields left out, nicknames and typos: partial agreements and ties. */
function queries(): NormalizedPerson[] {
  const out: NormalizedPerson[] = [];
  for (let i = 0; i < persons.length; i += 37) {
    const p = persons[i]!;
    out.push({ ...p });
    out.push({ ...p, dob: null, house: '', street: '', unit: '' });
    out.push({ ...p, zip: '', first: p.first.slice(0, 1), middle: '' });
    out.push({ ...p, last: `${p.last.slice(0, -1)}X`, city: '', lat: Number.NaN, lon: Number.NaN });
  }
  return out;
}

describe('a shard with the whole file statistics', () => {
  const whole = indexOf(persons);
  const shards = shardsOf();
  // The same model for both: the whole file's u, which an import stores for every shard.
  const model = buildModel(priorM(), estimateRandomPairU(whole), 0.7, 'prior');

  it('keeps the whole file size and each voter position', () => {
    for (const { index, positions } of shards) {
      assert.equal(index.size, whole.size);
      positions.forEach((position, voter) => {
        assert.equal(index.voterOrder(voter), position);
        assert.deepEqual(voterAsPerson(index, voter), voterAsPerson(whole, position));
      });
    }
    assert.equal(whole.voterOrder(17), 17);
  });

  it("measures a row's dynamic radius on the whole file's voters, wherever the row is", () => {
    // Every voter's point, in every shard: a row routed to a shard far from it (by its phone or
    // e-mail) searches the whole file's radius there, not the widest one.
    let located = 0;
    for (const person of persons) {
      if (Number.isNaN(person.lat)) continue;
      located++;
      const radius = dynamicRadius(whole, person.lat, person.lon);
      for (const { index } of shards) assert.equal(dynamicRadius(index, person.lat, person.lon), radius);
      for (const { index } of shards)
        assert.equal(
          index.cellCount(cellOf(person.lat, person.lon)),
          whole.cellCount(cellOf(person.lat, person.lon)),
        );
    }
    assert.ok(located > 1000);
  });

  it("gets the whole file's random-pair u, bit for bit, from its shards one at a time", () => {
    const expected = estimateRandomPairU(whole);
    // By state (a few large shards), and every third record (each shard's values first appear
    // elsewhere in the file than in the shard; the last shard added holds the file's first voter).
    for (const shardOf of [
      (p: NormalizedPerson) => p.state,
      (_p: NormalizedPerson, i: number) => `${2 - (i % 3)}`,
    ]) {
      const built = builtShards(shardOf).toReversed();
      const sample = new FileRandomPairSample(persons.length);
      for (const { index, positions } of built) sample.add(index, Uint32Array.from(positions));
      const stats = countFile(built).finish();
      // The density map of the dynamic radius at a sampled voter is the whole file's.
      assert.deepEqual(stats.cellIds, whole.data.cellIds);
      assert.deepEqual(stats.cellCounts, whole.data.cellCounts);
      const u = sample.estimate(stats);
      // Each shard alone estimates another u: what the sample replaces.
      assert.notDeepEqual(estimateRandomPairU(built[0]!.index), expected);
      assert.deepEqual(new Uint8Array(u.buffer), new Uint8Array(expected.buffer));
    }
  });

  it('scores every candidate it finds exactly as the whole file does, ties in the same order, in any shard', () => {
    let compared = 0;
    let tied = 0;
    const keep = 100_000;
    for (const person of queries()) {
      const wholeQuery = prepareQuery(whole, person, asOf);
      const found = new CandidateSet();
      generateCandidates(whole, wholeQuery, DEFAULT_CANDIDATE_OPTIONS, found);
      const wholeScored = scoreCandidates(whole, model, wholeQuery, found, keep).best;
      const byPosition = new Map(wholeScored.map((c) => [c.voter, c]));
      // Every shard, the row's state's and the others' (a row goes there by its birth date, ZIP,
      // phone or e-mail), also one where no voter has the row's names or state: a shard holds the
      // whole file's names and states with their counts.
      for (const { index, positions } of shards) {
        const q = prepareQuery(index, person, asOf);
        const candidates = new CandidateSet();
        generateCandidates(index, q, DEFAULT_CANDIDATE_OPTIONS, candidates);
        const scored = scoreCandidates(index, model, q, candidates, keep).best;
        for (const candidate of scored) {
          const position = positions[candidate.voter]!;
          const expected = byPosition.get(position);
          if (expected === undefined) continue; // found by a key the whole file skips (maxPostings)
          assert.equal(candidate.weight, expected.weight, `weight of voter ${position}`);
          assert.equal(candidate.odds, expected.odds, `odds of voter ${position}`);
          assert.deepEqual(candidate.levels, expected.levels);
          assert.equal(candidate.order, expected.order);
          compared++;
        }
        // The shard's ranking is the whole file's restricted to the shard's voters, ties included.
        const ranked = scored.map((c) => positions[c.voter]!).filter((p) => byPosition.has(p));
        const wholeRanked = wholeScored.map((c) => c.voter).filter((p) => ranked.includes(p));
        assert.deepEqual(ranked, wholeRanked);
        for (let i = 1; i < scored.length; i++) if (scored[i]!.weight === scored[i - 1]!.weight) tied++;
        const selected = selectMatches({ best: scored, oddsSum: 0 }, 0, 10, true).matches;
        const wholeSelected = selectMatches(
          { best: wholeScored.filter((c) => ranked.includes(c.voter)), oddsSum: 0 },
          0,
          10,
          true,
        ).matches;
        assert.deepEqual(
          selected.map((m) => positions[m.voter]),
          wholeSelected.map((m) => m.voter),
        );
      }
    }
    assert.ok(compared > 1000, `compared ${compared}`);
    assert.ok(tied > 0, 'some candidates tie');
  });
});

describe('a shard skips the blocking keys the whole file skips', () => {
  // 1,500 voters named JOHN SMITH born in 1970, in three states: their surname-and-year keys
  // list 1,500 voters in the file, about 500 in each state's shard.
  const states = ['NC', 'SC', 'VA'];
  const file = persons.map((p, i) =>
    i < 1500
      ? {
          ...p,
          first: 'JOHN',
          last: 'SMITH',
          dob: { year: 1970, month: 1 + (i % 12), day: 1 + (i % 28) },
          state: states[i % 3]!,
        }
      : p,
  );
  const whole = indexOf(file);
  const built = builtShards((p) => p.state, file);
  const shards = shardsOf(built);
  const options = { ...DEFAULT_CANDIDATE_OPTIONS, maxPostings: FILE_POSTINGS_FLOOR };
  // A birth year alone (a year-only date, as an age gives): its year keys keep every voter they
  // list (a whole date keeps only those with two of its parts: generate-candidates.ts).
  const query = { ...file[0]!, dob: { year: 1970, month: 0, day: 0 } };

  const candidates = (index: MatchIndex, positions?: number[]) => {
    const found = new CandidateSet();
    generateCandidates(index, prepareQuery(index, query, asOf), options, found);
    const voters: number[] = [];
    for (let i = 0; i < found.size; i++) voters.push(positions?.[found.voterAt(i)] ?? found.voterAt(i));
    return new Set(voters);
  };

  it('counts exactly the keys above the floor in the whole file, however evenly they are spread', () => {
    // Three shards; 1,002 JOHN SMITHs of 1970 and 999 JANE SMITHs of 1971, a third in each:
    // each shard holds 334 and 333 of them, just above and below a third of the floor.
    const spread = persons.map((p, i) =>
      i < 2001
        ? {
            ...p,
            first: i < 1002 ? 'JOHN' : 'JANE',
            last: 'SMITH',
            dob: { year: i < 1002 ? 1970 : 1971, month: 1 + (i % 12), day: 1 + (i % 28) },
            state: states[i % 3]!,
          }
        : { ...p, state: states[i % 3]! },
    );
    const evenly = builtShards((p) => p.state, spread);
    const counted = countFile(evenly).finish();
    // Every posting of every shard summed by key, then the keys above the floor.
    const sums = new Map<number, number>();
    for (const { index } of evenly) {
      index.data.postings.forEachKey((hash, entries) => {
        sums.set(hash, (sums.get(hash) ?? 0) + entries);
      });
    }
    const above = [...sums].filter(([, n]) => n > FILE_POSTINGS_FLOOR).sort(([a], [b]) => a - b);
    // Both cases are in the file: a key of 1,002 postings, counted; one of 999, not.
    assert.ok(above.some(([, n]) => n === 1002) && [...sums.values()].includes(999));
    assert.deepEqual(
      [...counted.postingsHashes],
      above.map(([hash]) => hash),
    );
    assert.deepEqual(
      [...counted.postingsCounts],
      above.map(([, n]) => n),
    );
  });

  it('finds in a shard only candidates the whole file finds', () => {
    const wholeFound = candidates(whole);
    const state = states.indexOf(query.state);
    const shard = shards.find(({ positions }) => file[positions[0]!]!.state === query.state)!;
    const own = built.find(({ positions }) => file[positions[0]!]!.state === query.state)!;
    assert.ok(state >= 0 && shard.index.data.file!.postingsHashes.length > 0);
    const found = candidates(shard.index, shard.positions);
    for (const position of found) assert.ok(wholeFound.has(position), `voter ${position}`);
    // By its own counts the shard searches the keys the whole file skips: hundreds more.
    const ownFound = candidates(own.index, own.positions);
    assert.ok(ownFound.size > found.size + 300, `${ownFound.size} against ${found.size}`);
  });
});

describe('a row matched in several shards, placed over them', () => {
  // Shards by state and ZIP3, as a big state is cut: a row's address and the voters within its
  // radius lie in other shards than the one holding its ZIP.
  const built = builtShards((person) => `${person.state}-${person.zip.slice(0, 3)}`);
  const shards = shardsOf(built);
  const whole = indexOf(persons);
  const model = buildModel(priorM(), estimateRandomPairU(whole), 0.7, 'prior');
  // Rows with an address and a ZIP, or a ZIP alone, and no coordinates: placed by the file.
  const rowsToPlace = queries()
    .filter((person) => Number.isNaN(person.lat) || person.zip !== '')
    .map((person) => ({ ...person, lat: Number.NaN, lon: Number.NaN }));

  /** Voter position → weight of every candidate the shards find for `person`, over all of them. */
  const overShards = (person: NormalizedPerson) => {
    const found = new Map<number, number>();
    for (const { index, positions } of shards) {
      const q = prepareQuery(index, person, asOf);
      const candidates = new CandidateSet();
      generateCandidates(index, q, DEFAULT_CANDIDATE_OPTIONS, candidates);
      for (const c of scoreCandidates(index, model, q, candidates, 100_000).best)
        found.set(positions[c.voter]!, c.weight);
    }
    return found;
  };
  const inWhole = (person: NormalizedPerson) => {
    const q = prepareQuery(whole, person, asOf);
    const candidates = new CandidateSet();
    generateCandidates(whole, q, DEFAULT_CANDIDATE_OPTIONS, candidates);
    return new Map(
      scoreCandidates(whole, model, q, candidates, 100_000).best.map((c) => [c.voter, c.weight]),
    );
  };
  const placed = (person: NormalizedPerson): NormalizedPerson => ({
    ...person,
    place: filePlace(
      shards.map(({ index }) => shardPlace(index, person, DEFAULT_CANDIDATE_OPTIONS.maxPostings)),
    ),
  });

  it('finds the whole file’s candidates, each weighed as there, wherever its address and radius lie', () => {
    let compared = 0;
    let apart = 0;
    for (const person of rowsToPlace) {
      const expected = inWhole(person);
      assert.deepEqual(overShards(placed(person)), expected, `${person.first} ${person.last} ${person.zip}`);
      compared += expected.size;
      // Each shard placing the row itself: some rows find other voters, or weigh them otherwise.
      if (!isDeepStrictEqual(overShards(person), expected)) apart++;
    }
    assert.ok(compared > 1000, `compared ${compared}`);
    assert.ok(apart > 0, `rows placed otherwise shard by shard: ${apart} of ${rowsToPlace.length}`);
  });

  it('is placed where the whole file places it: its address’s first voter, else its ZIP’s centroid', () => {
    let byAddress = 0;
    let byZip = 0;
    for (const person of rowsToPlace) {
      const q = prepareQuery(whole, person, asOf);
      generateCandidates(whole, q, DEFAULT_CANDIDATE_OPTIONS, new CandidateSet());
      const { location } = placed(person).place!;
      assert.deepEqual(location, q.location);
      if (location?.source === 'address') byAddress++;
      if (location?.source === 'zip') byZip++;
    }
    assert.ok(byAddress > 100 && byZip > 100, `by address ${byAddress}, by ZIP ${byZip}`);
  });
});
