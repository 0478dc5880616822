import { Buffer } from 'node:buffer';
import { parentPort } from 'node:worker_threads';
import { voterFieldColumns, voterFieldReader } from '../../domain/matching/index/build-match-index.ts';
import { countVoters } from '../../domain/matching/index/match-index.ts';
import { matchIndexParts } from '../../domain/matching/index/match-index-parts.ts';
import {
  type MatchIndexSegment,
  MatchIndexSegmentBuilder,
  segmentBuffers,
} from '../../domain/matching/index/match-index-segment.ts';
import { mergeMatchIndexSegments } from '../../domain/matching/index/merge-match-index-segments.ts';
import { type NormalizedPerson, voterNormalizer } from '../../domain/matching/normalize/person.ts';
import type { ShardBox } from './shard-contacts.ts';

/**
 * One segment builder of the match index (see match-index-threads.ts). A build begins with the
 * records' columns and the date ages are counted at; the thread then receives chunks of the
 * records file's bytes (whole lines of fields joined by U+001F, exactly as written; an import's
 * in shared memory) with the voter number of their first line, and answers each with an ack (the sender's flow control).
 * At the end, a segment thread sends its segment; the merging thread (one per build) receives the
 * other segments, merges them with its own and sends the index parts. Everything large moves by
 * transfer, not copy. A thread serves one build after another (a sharded import's shards): its
 * compiled code and its tables (phonetic codes, nicknames) are made once.
 *
 * With `shard` (a sharded import's shard), a thread also gathers the box of its voters'
 * coordinates for the import's map, from the values it normalizes anyway (the directory's hashes
 * of their phones, e-mails and ids are made by the threads that prepare the records:
 * voter-blocks.ts), and leaves the voters' counts by ZIP and birth date to the whole file's.
 *
 * In: { begin: { columns, asOf, shard } }, { chunks, firstRow } … then { finish: 'segment' } or
 * { finish: 'merge', segments }; then the next build's begin.
 * Out: { ack: rows } … then { segment, box } or { meta, names, buffers, box }, or { error }.
 */
type Message =
  | { begin: { columns: string[]; asOf: string; shard: boolean } }
  | { chunks: Uint8Array[]; firstRow: number }
  | { finish: 'segment' }
  | { finish: 'merge'; segments: MatchIndexSegment[] };

/** What one build reads its records with and adds them to. */
interface Build {
  read: ReturnType<typeof voterFieldReader>;
  fieldColumns: number;
  builder: MatchIndexSegmentBuilder;
  normalize: ReturnType<typeof voterNormalizer>;
  box: BoxGatherer | null;
}

function begin(columns: string[], asOf: string, shard: boolean): Build {
  return {
    read: voterFieldReader(columns),
    fieldColumns: voterFieldColumns(columns),
    builder: new MatchIndexSegmentBuilder(),
    normalize: voterNormalizer(new Date(asOf)),
    box: shard ? new BoxGatherer() : null,
  };
}

/**
 * The box of a shard's voters' coordinates, voter by voter, kept in place (an array per located
 * voter was a million allocations a million voters).
 */
class BoxGatherer {
  /** South, west, north and east (NaN before any located voter). */
  readonly #box = new Float64Array(4).fill(Number.NaN);

  add(person: NormalizedPerson): void {
    if (Number.isNaN(person.lat)) return;
    const box = this.#box;
    if (Number.isNaN(box[0]!)) {
      box.set([person.lat, person.lon, person.lat, person.lon]);
      return;
    }
    box[0] = Math.min(box[0]!, person.lat);
    box[1] = Math.min(box[1]!, person.lon);
    box[2] = Math.max(box[2]!, person.lat);
    box[3] = Math.max(box[3]!, person.lon);
  }

  take(): ShardBox {
    const [south, west, north, east] = this.#box;
    return Number.isNaN(south!) ? null : [south!, west!, north!, east!];
  }
}

const port = parentPort!;
let build: Build | null = null;

port.on('message', (message: Message) => {
  try {
    if ('begin' in message) {
      build = begin(message.begin.columns, message.begin.asOf, message.begin.shard);
      return;
    }
    if (build === null) throw new Error('a build begins before its records');
    const { read, fieldColumns, builder, normalize, box } = build;
    if ('chunks' in message) {
      let row = message.firstRow;
      for (const bytes of message.chunks) {
        // Line by line: a chunk decoded whole was a string of a megabyte, in fresh memory each
        // time (page faults), and one accented name in it made all of it two bytes a character.
        const chunk = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        let start = 0;
        while (start < chunk.length) {
          let end = chunk.indexOf(0x0a, start);
          if (end < 0) end = chunk.length;
          const record = chunk.toString('utf8', start, end).split('\x1f', fieldColumns);
          const person = normalize(read(record));
          builder.add(row++, person);
          box?.add(person);
          start = end + 1;
        }
      }
      port.postMessage({ ack: row - message.firstRow });
      return;
    }
    const segment = builder.finish();
    const gathered = box?.take() ?? null;
    const shard = box !== null;
    build = null;
    if (message.finish === 'segment') {
      port.postMessage({ segment, box: gathered }, segmentBuffers(segment));
      return;
    }
    const data = mergeMatchIndexSegments([segment, ...message.segments]);
    // A whole file's voters by ZIP and birth date, stored so that no process opening it counts
    // them again (MatchIndex.countInSteps); a shard's are the whole file's, added once every
    // shard is built (shard-file-statistics.ts).
    if (!shard) data.voterCounts = countVoters(data.fields);
    const { meta, parts } = matchIndexParts({ data });
    const names = [...parts.keys()];
    // Parts that own their whole buffer move without a copy; a view into a shared one is copied.
    const buffers = names.map((name) => {
      const part = parts.get(name)!;
      return part.byteOffset === 0 && part.byteLength === part.buffer.byteLength ? part : part.slice();
    });
    port.postMessage(
      { meta, names, buffers, box: gathered },
      buffers.map((b) => b.buffer as ArrayBuffer),
    );
  } catch (error) {
    port.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
});
