import { CELL_KEY_WORDS } from './blocking-keys.ts';
import { joinContactSamples } from './contact-sample.ts';
import { FirstNameCohortCount } from './first-name-cohorts.ts';
import { FirstNameGenderCount } from './first-name-genders.ts';
import type { MatchIndexData } from './match-index-data.ts';
import { TEXT_FIELDS, type TextField } from './match-index-fields.ts';
import type { MatchIndexSegment, SegmentDictionary } from './match-index-segment.ts';
import { PackedPostings } from './packed-postings.ts';
import { StringDictionary } from './string-dictionary.ts';
import { codeTable, VoterFieldTable } from './voter-field-table.ts';

const MICRODEGREES = 1e6;

/**
 * Joins segments that together hold every voter 0..n-1 exactly once into the index one builder
 * would have made from all of them in order: dictionary ids in order of first appearance in the
 * file, postings sorted by hash then voter, the same cell counts and ZIP centroids. So the index
 * (and every match) is the same whatever the number of threads that built it.
 */
export function mergeMatchIndexSegments(segments: readonly MatchIndexSegment[]): MatchIndexData {
  let size = 0;
  for (const segment of segments) size += segment.rows.length;
  checkRows(segments, size);

  const dictionaries = {} as Record<TextField, StringDictionary>;
  const remapsOf = {} as Record<TextField, Uint32Array[]>;
  let firstSounds: Uint32Array = new Uint32Array(0);
  let lastSounds: Uint32Array = new Uint32Array(0);
  for (const field of TEXT_FIELDS) {
    const { dictionary, remaps } = mergeDictionaries(segments.map((s) => s.dictionaries[field]));
    dictionaries[field] = dictionary;
    remapsOf[field] = remaps;
    if (field === 'first')
      firstSounds = mergeSounds(
        dictionary.size,
        remaps,
        segments.map((s) => s.firstSounds),
      );
    if (field === 'last')
      lastSounds = mergeSounds(
        dictionary.size,
        remaps,
        segments.map((s) => s.lastSounds),
      );
  }

  const fields = new VoterFieldTable(
    size,
    Object.fromEntries(TEXT_FIELDS.map((f) => [f, dictionaries[f].size])) as Record<TextField, number>,
    {
      zips: codeTable(segments.flatMap((segment) => [...new Set(segment.zip)])),
      dobs: codeTable(segments.flatMap((segment) => [...new Set(segment.dob)])),
    },
  );
  const genders = new FirstNameGenderCount(dictionaries.first.size);
  const cohorts = new FirstNameCohortCount(dictionaries.first.size);
  segments.forEach((segment, s) => {
    const rows = segment.rows;
    for (const field of TEXT_FIELDS) {
      const local = segment.ids[field];
      const remap = remapsOf[field][s]!;
      for (let r = 0; r < rows.length; r++) fields.setId(field, rows[r]!, remap[local[r]!]!);
    }
    const firstIds = segment.ids.first;
    const firstRemap = remapsOf.first[s]!;
    for (let r = 0; r < rows.length; r++) {
      genders.add(firstRemap[firstIds[r]!]!, segment.gender[r]!);
      cohorts.add(firstRemap[firstIds[r]!]!, segment.dob[r]!);
    }
    for (let r = 0; r < rows.length; r++) {
      fields.setFixed(rows[r]!, {
        lat: segment.lat[r]!,
        lon: segment.lon[r]!,
        dob: segment.dob[r]!,
        zip: segment.zip[r]!,
        gender: segment.gender[r]!,
        contact: segment.contact[r]!,
      });
    }
  });

  const cells = mergeCounts(segments.map((s) => [s.cellIds, [s.cellCounts]] as const));
  const zips = mergeCounts(
    segments.map((s) => [s.zipIds, [s.zipCounts, s.zipLatSums, s.zipLonSums]] as const),
  );
  const [zipCounts, zipLatSums, zipLonSums] = zips.sums as [Float64Array, Float64Array, Float64Array];
  return {
    size,
    dictionaries,
    firstSounds,
    lastSounds,
    firstGenders: genders.genders(),
    firstCohorts: cohorts.concentrations(),
    fields,
    postings: mergePostings(segments, size),
    cellIds: cells.keys,
    cellCounts: Uint32Array.from(cells.sums[0]!),
    cellKeyFilters: mergeCellKeyFilters(segments, cells.keys),
    zipIds: zips.keys,
    zipLat: Float32Array.from(zipLatSums, (sum, i) => sum / zipCounts[i]! / MICRODEGREES),
    zipLon: Float32Array.from(zipLonSums, (sum, i) => sum / zipCounts[i]! / MICRODEGREES),
    contacts: joinContactSamples(segments.map((s) => s.contacts)),
  };
}

/** Every voter 0..size-1 in exactly one segment, each segment's rows ascending. */
function checkRows(segments: readonly MatchIndexSegment[], size: number): void {
  const seen = new Uint8Array(size);
  for (const segment of segments) {
    let previous = -1;
    for (const row of segment.rows) {
      if (row >= size || row <= previous || seen[row] !== 0)
        throw new Error(
          `match index segments do not cover voters 0..${size - 1} exactly once (voter ${row})`,
        );
      seen[row] = 1;
      previous = row;
    }
  }
}

/**
 * One dictionary from the segments': values ordered by the voter where each first appears (each
 * segment's list is already in that order, so this is a k-way merge), counts summed. Returns, per
 * segment, its local id → merged id.
 */
function mergeDictionaries(parts: readonly SegmentDictionary[]): {
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

/** Each merged name's sound, from the segment that holds it (the same name has the same sound in each). */
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

/** The segments' cell key filters joined (OR) per cell, in the order of the merged `cellIds`. */
function mergeCellKeyFilters(segments: readonly MatchIndexSegment[], cellIds: Uint32Array): Uint32Array {
  const merged = new Uint32Array(cellIds.length * CELL_KEY_WORDS);
  for (const segment of segments) {
    // Both lists of cells ascend: walk them together.
    let at = 0;
    for (let i = 0; i < segment.cellIds.length; i++) {
      while (cellIds[at]! < segment.cellIds[i]!) at++;
      for (let w = 0; w < CELL_KEY_WORDS; w++) {
        merged[at * CELL_KEY_WORDS + w]! |= segment.cellKeyFilters[i * CELL_KEY_WORDS + w]!;
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

/** The segments' sorted postings merged by (hash, voter): pairwise, a two-way merge per pass. */
function mergePostings(segments: readonly MatchIndexSegment[], voterCount: number): PackedPostings {
  let runs = segments.map((s) => ({ hashes: s.postingsHashes, voters: s.postingsVoters }));
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
