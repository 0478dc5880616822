/**
 * The queue's place steps (stages/place.ts, as the match stage places rows in one process): a
 * row is placed once over the shards it is routed to, and also matched in the shards its radius
 * reaches from that place. Each chunk's step writes its shard's part of its rows' places
 * (chunkParts); the step that finds every chunk's parts written combines them (combinePlaces):
 * each chunk's places, read beside it by its evidence and match steps (placedLines), and a reach
 * chunk for each shard some row's radius reaches from the shards it was routed to.
 */
import type { MatchIndex } from '../../matching/index/match-index.ts';
import { normalizeInput } from '../../matching/normalize/person.ts';
import { type ChunkRow, rowOfLine } from '../chunk-lines.ts';
import { personPlaces, placeParts, type RowParts, reachOf, type ShardsNear } from '../stages/place.ts';

/** A line of a chunk's parts: a row's persons' parts of their places in the chunk's shard. */
interface PartLine {
  r: number;
  s: RowParts;
  /** 1: the row is matched in several shards (the split's `m`): placed over them all. */
  m?: 1;
  /** A row of this shard alone whose radius reaches others: every shard it is matched in. */
  n?: readonly number[];
  /**
   * Its cells, for the reach chunks: with `n`; with `m`, where this shard's part may place it (its
   * address's voter, or its ZIP's centroid, is here), for the combination to find its reach.
   */
  f?: ChunkRow['f'];
}

/** Where a step writes lines (a LineBuffer over a blob). */
export interface LineSink {
  write(line: string): void;
  ready(): Promise<void>;
}

/**
 * What a row's place and radius are found with: a shard's index (its own voters for its part of a
 * place; the whole file's density, every shard's, for the dynamic radius), the map's reach, the
 * run's fixed radius (null: the dynamic one) and the run's date (rows normalized at it).
 */
export interface PlaceRadius {
  index: MatchIndex;
  near: ShardsNear;
  miles: number | null;
  asOf: Date;
}

export interface ChunkPartsInput {
  /** The chunk's input lines (the split's). */
  lines: AsyncIterable<string>;
  /** The chunk's shard's number in the map; its index is `radius.index`. */
  shard: number;
  radius: PlaceRadius;
  out: LineSink;
}

/**
 * A chunk's place step: each row of several shards with a place to find (its parts here, in
 * every shard it is matched in), and each row of this shard alone whose radius reaches others
 * (its parts, the shards, its cells). Returns the rows written.
 */
export async function chunkParts(input: ChunkPartsInput): Promise<number> {
  const { index, near, miles, asOf } = input.radius;
  let written = 0;
  for await (const text of input.lines) {
    const row = JSON.parse(text) as ChunkRow;
    const normalized = normalizeInput(row.f, asOf);
    const parts = placeParts(index, normalized);
    if (parts === null) continue;
    let line: PartLine;
    if (row.m === 1) {
      const locates = parts.some((part) => part !== null && (part.address !== null || part.zip !== null));
      line = locates ? { r: row.r, s: parts, m: 1, f: row.f } : { r: row.r, s: parts, m: 1 };
    } else {
      const places = personPlaces([parts]);
      const shards = reachOf([input.shard], index, normalized, places, near, miles);
      if (shards.length === 1) continue;
      line = { r: row.r, s: parts, n: shards, f: row.f };
    }
    input.out.write(`${JSON.stringify(line)}\n`);
    written++;
    if (written % 1000 === 0) await input.out.ready();
  }
  await input.out.ready();
  return written;
}

/** A chunk the combination reads the parts of. */
export interface PlacedChunk {
  name: string;
  /** Its shard's number in the map. */
  shard: number;
}

export interface CombineInput {
  /** The chunks, in map order then chunk order. */
  chunks: readonly PlacedChunk[];
  /** A chunk's parts (chunkParts' lines, in row order). */
  partsOf(chunk: string): AsyncIterable<string>;
  /** Where a chunk's places go (placedLines reads them beside the chunk). */
  places(chunk: string): LineSink;
  /** Where the rows its radius reaches shard `shard` with go (the shard's reach chunk's input). */
  reach(shard: number): LineSink;
  /** Resolves when every sink has room again. */
  ready(): Promise<void>;
  /** What a row of several shards' radius is found with (null: a file without an index). */
  radius: PlaceRadius | null;
}

/** What the combination found: the reach chunks' shards, and their first rows. */
export interface CombineResult {
  /** Per shard reached: its first row (a reach chunk holds the sample when it is early enough). */
  reached: Map<number, number>;
  /** Rows placed over several shards, and rows of one shard matched in the shards they reach. */
  placedRows: number;
  reachRows: number;
}

/**
 * Combines every chunk's parts, row by row: a row of several shards gets its place over them all
 * (filePlace, shard order), written to each of its chunks' places, and goes with its cells and
 * place to the reach chunk of each other shard its radius reaches from there; a row of one shard
 * reaching others gets its own shard's place, written to its chunk's places (now matched in
 * several shards: `m`) and, with its cells, to the reach chunk of each shard reached.
 */
export async function combinePlaces(input: CombineInput): Promise<CombineResult> {
  const shards = [...new Set(input.chunks.map((chunk) => chunk.shard))];
  const streams = shards.map((shard) =>
    taggedLines(
      input.chunks.filter((chunk) => chunk.shard === shard),
      input.partsOf,
    ),
  );
  try {
    return await combineStreams(input, streams);
  } finally {
    for (const stream of streams) await stream.return(undefined);
  }
}

async function combineStreams(
  input: CombineInput,
  streams: AsyncGenerator<TaggedLine>[],
): Promise<CombineResult> {
  const heads: (TaggedLine | null)[] = [];
  for (const stream of streams) heads.push(await next(stream));
  const result: CombineResult = { reached: new Map(), placedRows: 0, reachRows: 0 };
  for (;;) {
    let row = Number.POSITIVE_INFINITY;
    for (const head of heads) if (head !== null) row = Math.min(row, rowOfLine(head.line));
    if (row === Number.POSITIVE_INFINITY) break;
    const found: { chunk: string; shard: number; part: PartLine }[] = [];
    for (let i = 0; i < heads.length; i++) {
      const head = heads[i]!;
      if (head === null || rowOfLine(head.line) !== row) continue;
      found.push({ chunk: head.chunk, shard: head.shard, part: JSON.parse(head.line) as PartLine });
      heads[i] = await next(streams[i]!);
    }
    const first = found[0]!.part;
    const toReach = (shards: readonly number[], cells: ChunkRow['f'], places: string) => {
      for (const shard of shards) {
        if (found.some((part) => part.shard === shard)) continue;
        const line = JSON.stringify({ r: row, f: cells, m: 1 } satisfies ChunkRow);
        input.reach(shard).write(`${line.slice(0, -1)},"p":${places}}\n`);
        if (!result.reached.has(shard)) result.reached.set(shard, row);
      }
    };
    if (first.n === undefined) {
      const persons = personPlaces(found.map(({ part }) => part.s));
      const places = JSON.stringify(persons);
      for (const { chunk } of found) input.places(chunk).write(`{"r":${row},"p":${places}}\n`);
      result.placedRows++;
      // Its cells come with the part of a shard that places it; placed by none, it reaches none.
      const cells = found.find(({ part }) => part.f !== undefined)?.part.f;
      if (cells !== undefined && input.radius !== null) {
        const { index, near, miles, asOf } = input.radius;
        const routed = found.map(({ shard }) => shard);
        const normalized = normalizeInput(cells, asOf);
        const shards = reachOf(routed, index, normalized, persons, near, miles);
        if (shards.length > routed.length) {
          toReach(shards, cells, places);
          result.reachRows++;
        }
      }
    } else {
      if (found.length !== 1) throw new Error(`row ${row} reaches other shards from several`);
      const places = JSON.stringify(personPlaces([first.s]));
      input.places(found[0]!.chunk).write(`{"r":${row},"m":1,"p":${places}}\n`);
      toReach(first.n, first.f!, places);
      result.reachRows++;
    }
    if ((result.placedRows + result.reachRows) % 1000 === 0) await input.ready();
  }
  return result;
}

/** A line of a chunk's parts, with the chunk's name and shard. */
interface TaggedLine {
  chunk: string;
  shard: number;
  line: string;
}

/** A shard's chunks' lines one after the other, each with its chunk. */
async function* taggedLines(
  chunks: readonly PlacedChunk[],
  linesOf: (chunk: string) => AsyncIterable<string>,
): AsyncGenerator<TaggedLine> {
  for (const { name, shard } of chunks)
    for await (const line of linesOf(name)) yield { chunk: name, shard, line };
}

async function next<T>(stream: AsyncGenerator<T>): Promise<T | null> {
  const step = await stream.next();
  return step.done === true ? null : step.value;
}

/**
 * A chunk's input lines with its places beside them (both in row order): a row with a place
 * gets it (`p`, and `m` for a row now matched in several shards), read by inputOfLine.
 */
export async function* placedLines(
  lines: AsyncIterable<string>,
  places: AsyncIterable<string>,
): AsyncGenerator<string> {
  const placesOfRows = places[Symbol.asyncIterator]();
  try {
    let head = await placesOfRows.next();
    for await (const line of lines) {
      const row = rowOfLine(line);
      if (head.done !== true && rowOfLine(head.value) < row)
        throw new Error(`a chunk's places hold row ${rowOfLine(head.value)}, which it does not`);
      if (head.done === true || rowOfLine(head.value) !== row) {
        yield line;
        continue;
      }
      // Both lines are objects whose `r` comes first: the places' members after it join the row's.
      const members = head.value.slice(`{"r":${row}`.length, -1);
      yield `${line.slice(0, -1)}${members}}`;
      head = await placesOfRows.next();
    }
    if (head.done !== true)
      throw new Error(`a chunk's places hold row ${rowOfLine(head.value)}, which it does not`);
  } finally {
    // A reader that stops early (the evidence step, at the sample's end) closes the places too.
    await placesOfRows.return?.();
  }
}
