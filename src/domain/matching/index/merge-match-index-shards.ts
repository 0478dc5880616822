import { CELL_KEY_WORDS } from './blocking-keys.ts';
import type { MatchIndexData } from './match-index-data.ts';
import { TEXT_FIELDS, type TextField } from './match-index-fields.ts';
import type { MatchIndexShard, ShardDictionary } from './match-index-shard.ts';
import { PackedPostings } from './packed-postings.ts';
import { StringDictionary } from './string-dictionary.ts';
import { codeTable, VoterFieldTable } from './voter-field-table.ts';

const MICRODEGREES = 1e6;

/**
 * Joins shards that together hold every voter 0..n-1 exactly once into the index one builder
 * would have made from all of them in order: dictionary ids in order of first appearance in the
 * file, postings sorted by hash then voter, the same cell counts and ZIP centroids. So the index
 * (and every match) is the same whatever the number of threads that built it.
 */
export function mergeMatchIndexShards(shards: readonly MatchIndexShard[]): MatchIndexData {
  let size = 0;
  for (const shard of shards) size += shard.rows.length;
  checkRows(shards, size);

  const dictionaries = {} as Record<TextField, StringDictionary>;
  const remapsOf = {} as Record<TextField, Uint32Array[]>;
  let firstSounds: Uint32Array = new Uint32Array(0);
  let lastSounds: Uint32Array = new Uint32Array(0);
  for (const field of TEXT_FIELDS) {
    const { dictionary, remaps } = mergeDictionaries(shards.map((s) => s.dictionaries[field]));
    dictionaries[field] = dictionary;
    remapsOf[field] = remaps;
    if (field === 'first')
      firstSounds = mergeSounds(
        dictionary.size,
        remaps,
        shards.map((s) => s.firstSounds),
      );
    if (field === 'last')
      lastSounds = mergeSounds(
        dictionary.size,
        remaps,
        shards.map((s) => s.lastSounds),
      );
  }

  const fields = new VoterFieldTable(
    size,
    Object.fromEntries(TEXT_FIELDS.map((f) => [f, dictionaries[f].size])) as Record<TextField, number>,
    {
      zips: codeTable(shards.flatMap((shard) => [...new Set(shard.zip)])),
      dobs: codeTable(shards.flatMap((shard) => [...new Set(shard.dob)])),
    },
  );
  shards.forEach((shard, s) => {
    const rows = shard.rows;
    for (const field of TEXT_FIELDS) {
      const local = shard.ids[field];
      const remap = remapsOf[field][s]!;
      for (let r = 0; r < rows.length; r++) fields.setId(field, rows[r]!, remap[local[r]!]!);
    }
    for (let r = 0; r < rows.length; r++) {
      fields.setFixed(rows[r]!, {
        lat: shard.lat[r]!,
        lon: shard.lon[r]!,
        dob: shard.dob[r]!,
        zip: shard.zip[r]!,
        gender: shard.gender[r]!,
        contact: shard.contact[r]!,
      });
    }
  });

  const cells = mergeCounts(shards.map((s) => [s.cellIds, [s.cellCounts]] as const));
  const zips = mergeCounts(shards.map((s) => [s.zipIds, [s.zipCounts, s.zipLatSums, s.zipLonSums]] as const));
  const [zipCounts, zipLatSums, zipLonSums] = zips.sums as [Float64Array, Float64Array, Float64Array];
  return {
    size,
    dictionaries,
    firstSounds,
    lastSounds,
    fields,
    postings: mergePostings(shards, size),
    cellIds: cells.keys,
    cellCounts: Uint32Array.from(cells.sums[0]!),
    cellKeyFilters: mergeCellKeyFilters(shards, cells.keys),
    zipIds: zips.keys,
    zipLat: Float32Array.from(zipLatSums, (sum, i) => sum / zipCounts[i]! / MICRODEGREES),
    zipLon: Float32Array.from(zipLonSums, (sum, i) => sum / zipCounts[i]! / MICRODEGREES),
  };
}

/** Every voter 0..size-1 in exactly one shard, each shard's rows ascending. */
function checkRows(shards: readonly MatchIndexShard[], size: number): void {
  const seen = new Uint8Array(size);
  for (const shard of shards) {
    let previous = -1;
    for (const row of shard.rows) {
      if (row >= size || row <= previous || seen[row] !== 0)
        throw new Error(`match index shards do not cover voters 0..${size - 1} exactly once (voter ${row})`);
      seen[row] = 1;
      previous = row;
    }
  }
}

/**
 * One dictionary from the shards': values ordered by the voter where each first appears (each
 * shard's list is already in that order, so this is a k-way merge), counts summed. Returns, per
 * shard, its local id → merged id.
 */
function mergeDictionaries(parts: readonly ShardDictionary[]): {
  dictionary: StringDictionary;
  remaps: Uint32Array[];
} {
  const values: string[] = [''];
  const merged = new Map<string, number>([['', 0]]);
  const remaps = parts.map((part) => new Uint32Array(part.values.length));
  const next = parts.map(() => 1);
  for (;;) {
    let best = -1;
    for (let s = 0; s < parts.length; s++) {
      const i = next[s]!;
      if (
        i < parts[s]!.values.length &&
        (best < 0 || parts[s]!.firstRows[i]! < parts[best]!.firstRows[next[best]!]!)
      )
        best = s;
    }
    if (best < 0) break;
    const i = next[best]!++;
    const value = parts[best]!.values[i]!;
    let id = merged.get(value);
    if (id === undefined) {
      id = values.length;
      merged.set(value, id);
      values.push(value);
    }
    remaps[best]![i] = id;
  }
  const counts = new Uint32Array(values.length);
  parts.forEach((part, s) => {
    const remap = remaps[s]!;
    for (let i = 0; i < part.counts.length; i++) counts[remap[i]!]! += part.counts[i]!;
  });
  return { dictionary: StringDictionary.fromValues(values, counts), remaps };
}

/** Each merged name's sound, from the shard that holds it (the same name has the same sound in each). */
function mergeSounds(
  size: number,
  remaps: readonly Uint32Array[],
  parts: readonly Uint32Array[],
): Uint32Array {
  const sounds = new Uint32Array(size);
  parts.forEach((part, s) => {
    const remap = remaps[s]!;
    for (let i = 0; i < part.length; i++) sounds[remap[i]!] = part[i]!;
  });
  return sounds;
}

/** The shards' cell key filters joined (OR) per cell, in the order of the merged `cellIds`. */
function mergeCellKeyFilters(shards: readonly MatchIndexShard[], cellIds: Uint32Array): Uint32Array {
  const merged = new Uint32Array(cellIds.length * CELL_KEY_WORDS);
  for (const shard of shards) {
    // Both lists of cells ascend: walk them together.
    let at = 0;
    for (let i = 0; i < shard.cellIds.length; i++) {
      while (cellIds[at]! < shard.cellIds[i]!) at++;
      for (let w = 0; w < CELL_KEY_WORDS; w++) {
        merged[at * CELL_KEY_WORDS + w]! |= shard.cellKeyFilters[i * CELL_KEY_WORDS + w]!;
      }
    }
  }
  return merged;
}

/** Sums per key over sorted (keys, columns) lists: the union of keys, ascending, with summed columns. */
function mergeCounts(parts: readonly (readonly [Uint32Array, readonly ArrayLike<number>[]])[]): {
  keys: Uint32Array;
  sums: Float64Array[];
} {
  const union = new Map<number, number[]>();
  for (const [keys, columns] of parts) {
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      let sums = union.get(key);
      if (sums === undefined) {
        sums = columns.map(() => 0);
        union.set(key, sums);
      }
      for (let c = 0; c < columns.length; c++) sums[c]! += columns[c]![i]!;
    }
  }
  const keys = Uint32Array.from([...union.keys()].sort((a, b) => a - b));
  const width = parts[0]?.[1].length ?? 0;
  const sums = Array.from({ length: width }, (_, c) => Float64Array.from(keys, (key) => union.get(key)![c]!));
  return { keys, sums };
}

/** The shards' sorted postings merged by (hash, voter): pairwise, a two-way merge per pass. */
function mergePostings(shards: readonly MatchIndexShard[], voterCount: number): PackedPostings {
  let runs = shards.map((s) => ({ hashes: s.postingsHashes, voters: s.postingsVoters }));
  while (runs.length > 1) {
    const next: typeof runs = [];
    for (let i = 0; i + 1 < runs.length; i += 2) next.push(mergeTwo(runs[i]!, runs[i + 1]!));
    if (runs.length % 2 === 1) next.push(runs.at(-1)!);
    runs = next;
  }
  const [run] = runs;
  return PackedPostings.fromSorted(
    run?.hashes ?? new Uint32Array(0),
    run?.voters ?? new Uint32Array(0),
    voterCount,
  );
}

type Run = { hashes: Uint32Array; voters: Uint32Array };

function mergeTwo(a: Run, b: Run): Run {
  const total = a.hashes.length + b.hashes.length;
  const hashes = new Uint32Array(total);
  const voters = new Uint32Array(total);
  const aHashes = a.hashes;
  const bHashes = b.hashes;
  const aEnd = aHashes.length;
  const bEnd = bHashes.length;
  let i = 0;
  let j = 0;
  let out = 0;
  while (i < aEnd && j < bEnd) {
    const ha = aHashes[i]!;
    const hb = bHashes[j]!;
    if (ha < hb || (ha === hb && a.voters[i]! < b.voters[j]!)) {
      hashes[out] = ha;
      voters[out++] = a.voters[i++]!;
    } else {
      hashes[out] = hb;
      voters[out++] = b.voters[j++]!;
    }
  }
  hashes.set(aHashes.subarray(i), out);
  voters.set(a.voters.subarray(i), out);
  out += aEnd - i;
  hashes.set(bHashes.subarray(j), out);
  voters.set(b.voters.subarray(j), out);
  return { hashes, voters };
}
