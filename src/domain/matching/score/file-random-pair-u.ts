import {
  type FileValueCounts,
  type WholeFileStatistics,
  withFileStatistics,
} from '../index/file-statistics.ts';
import { positionOf } from '../index/lower-bound.ts';
import { MatchIndex, MatchIndexBuilder } from '../index/match-index.ts';
import { emptyPerson, type NormalizedPerson } from '../normalize/person.ts';
import {
  estimateFileRandomPairU,
  type RandomPairFigures,
  randomPairPositions,
  voterAsPerson,
} from './random-pair-u.ts';

/**
 * The random-pair u of a voter file imported as shards, bit for bit the u an import of the whole
 * file estimates (estimateRandomPairU), with one shard in memory at a time: the voters at the file
 * positions u samples (randomPairPositions: about 160,000, whatever the file's size) are read as
 * persons from their shards as each is added; `estimate` then builds an index of those voters
 * alone with the whole file's statistics (dictionary counts, first-name genders, size, ZIPs,
 * map-cell counts: withFileStatistics), which compares them as the whole file's index does, and
 * takes the value frequencies in the whole file's order of first appearance.
 */
export class FileRandomPairSample {
  /** The sampled file positions, distinct and ascending: voter k of the sample's index is the k-th. */
  private readonly positions: Uint32Array;
  private readonly persons: (NormalizedPerson | undefined)[];
  /** Per sampled position, whether it is only ever measured for distance (its place is all u reads). */
  private readonly placeOnly: Uint8Array;
  private readonly size: number;

  /** `size`: voters in the whole file. */
  constructor(size: number) {
    this.size = size;
    const { pairs, distance } = randomPairPositions(size);
    const all = new Uint32Array(pairs.length + distance.length);
    all.set(pairs);
    all.set(distance, pairs.length);
    all.sort();
    let distinct = 0;
    for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[i - 1]) all[distinct++] = all[i]!;
    this.positions = all.slice(0, distinct);
    this.persons = new Array(distinct);
    this.placeOnly = new Uint8Array(distinct).fill(1);
    for (const position of pairs) this.placeOnly[positionOf(this.positions, position)] = 0;
  }

  /** One shard's index and each of its voters' file position (ascending): reads its sampled voters. */
  add(index: MatchIndex, order: Uint32Array): void {
    if (order.length !== index.data.size) throw new RangeError('one file position per voter of the shard');
    const positions = this.positions;
    for (let k = 0; k < positions.length; k++) {
      const voter = positionOf(order, positions[k]!);
      if (voter < 0) continue;
      const person = voterAsPerson(index, voter);
      // A voter only measured for distance is indexed by its place alone (fewer keys to build).
      this.persons[k] =
        this.placeOnly[k] === 1 ? { ...emptyPerson(), lat: person.lat, lon: person.lon } : person;
    }
  }

  /** The whole file's u, once every shard was added and counted (FileStatisticsCount). */
  estimate(whole: WholeFileStatistics): Float64Array {
    if (whole.size !== this.size)
      throw new RangeError(`u sampled for ${this.size} voters, not ${whole.size}`);
    // Compared against, never searched (estimateFileRandomPairU looks no key up): without
    // postings, which took 1.1 s of the 2.7 s of a 1M-voter file's 4 shards.
    const builder = new MatchIndexBuilder({ postings: false });
    this.persons.forEach((person, k) => {
      if (person === undefined)
        throw new Error(`no shard holds the voter at file position ${this.positions[k]}`);
      builder.add(k, person);
    });
    // The dynamic radius at a sampled voter counts the whole file's voters around it (densityCells).
    const index = new MatchIndex(withFileStatistics(builder.finishData(), whole, this.positions));
    const positions = this.positions;
    return estimateFileRandomPairU(fileFigures(whole), {
      index,
      voterAt: (position) => positionOf(positions, position),
    });
  }
}

/** u's figures of the whole file, each in its order of first appearance. */
function fileFigures(whole: WholeFileStatistics): RandomPairFigures {
  const first = inFileOrder(whole.values.first);
  return {
    size: whole.size,
    firstNames: first.map((id) => whole.values.first.values[id]!),
    firstCounts: first.map((id) => whole.values.first.counts[id]!),
    lastCounts: countsInFileOrder(whole.values.last),
    cityCounts: countsInFileOrder(whole.values.city),
    stateCounts: countsInFileOrder(whole.values.state),
    zips: new Map(byFirstAppearance(whole.zipIds, whole.zipFirstAt).map((zip) => [zip, countOf(whole, zip)])),
    dobs: new Map(
      byFirstAppearance(whole.dobs.keys(), whole.dobFirstAt).map((dob) => [dob, whole.dobs.get(dob)!]),
    ),
    ...(whole.contacts === undefined ? {} : { contacts: whole.contacts }),
  };
}

/** Ids of the values some voter has (not the empty value), by their first voter's file position. */
function inFileOrder(values: FileValueCounts): number[] {
  if (!values.ordered) throw new Error('a field whose values were counted without their order');
  const ids: number[] = [];
  for (let id = 1; id < values.counts.length; id++) if (values.firstAt[id]! < Infinity) ids.push(id);
  return ids.sort((a, b) => values.firstAt[a]! - values.firstAt[b]!);
}

function countsInFileOrder(values: FileValueCounts): number[] {
  return inFileOrder(values).map((id) => values.counts[id]!);
}

function byFirstAppearance(keys: Iterable<number>, firstAt: ReadonlyMap<number, number>): number[] {
  return [...keys].sort((a, b) => firstAt.get(a)! - firstAt.get(b)!);
}

function countOf(whole: WholeFileStatistics, zip: number): number {
  return whole.zipCounts[positionOf(whole.zipIds, zip)]!;
}
