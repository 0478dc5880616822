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
import { directoryHashes } from '../../domain/voters/shard-directory.ts';
import { extendBox, statelessIds } from '../../domain/voters/shard-map.ts';
import type { ShardContacts } from './shard-contacts.ts';

/**
 * One segment builder of the match index (see match-index-threads.ts). A build begins with the
 * records' columns and the date ages are counted at; the thread then receives chunks of the
 * records file's bytes (whole lines of fields joined by U+001F, exactly as written) with the
 * voter number of their first line, and answers each with an ack (the sender's flow control).
 * At the end, a segment thread sends its segment; the merging thread (one per build) receives the
 * other segments, merges them with its own and sends the index parts. Everything large moves by
 * transfer, not copy. A thread serves one build after another (a sharded import's shards): its
 * compiled code and its tables (phonetic codes, nicknames) are made once.
 *
 * With `contacts` (a sharded import's shard), a thread also gathers what the import's shard
 * directory and map need of its voters, from the values it normalizes anyway: the directory's
 * hashes of their phones, e-mail and stateless ids, and the box of their coordinates.
 *
 * In: { begin: { columns, asOf, contacts } }, { chunk, firstRow } … then { finish: 'segment' } or
 * { finish: 'merge', segments }; then the next build's begin.
 * Out: { ack: rows } … then { segment, contacts } or { meta, names, buffers, contacts }, or { error }.
 */
type Message =
  | { begin: { columns: string[]; asOf: string; contacts: boolean } }
  | { chunk: Uint8Array; firstRow: number }
  | { finish: 'segment' }
  | { finish: 'merge'; segments: MatchIndexSegment[] };

/** What one build reads its records with and adds them to. */
interface Build {
  read: ReturnType<typeof voterFieldReader>;
  fieldColumns: number;
  builder: MatchIndexSegmentBuilder;
  normalize: ReturnType<typeof voterNormalizer>;
  contacts: ContactsGatherer | null;
}

function begin(columns: string[], asOf: string, contacts: boolean): Build {
  const gatherer = contacts ? new ContactsGatherer(columns) : null;
  return {
    read: voterFieldReader(columns),
    fieldColumns: Math.max(voterFieldColumns(columns), gatherer?.columns ?? 0),
    builder: new MatchIndexSegmentBuilder(),
    normalize: voterNormalizer(new Date(asOf)),
    contacts: gatherer,
  };
}

/** A shard's directory hashes and box, voter by voter (see the file's comment). */
class ContactsGatherer {
  readonly #voterbaseId: number;
  readonly #exactTrack: number;
  /** Fields of a record it reads: up to the last of its id columns. */
  readonly columns: number;
  #hashes = new Uint32Array(1 << 16);
  #count = 0;
  #box: ShardContacts['box'] = null;

  constructor(columns: readonly string[]) {
    this.#voterbaseId = columns.indexOf('voterbase_id');
    this.#exactTrack = columns.indexOf('exact_track');
    this.columns = Math.max(this.#voterbaseId, this.#exactTrack) + 1;
  }

  add(record: readonly string[], person: NormalizedPerson): void {
    const ids = statelessIds(cell(record, this.#voterbaseId), cell(record, this.#exactTrack));
    for (const hash of directoryHashes(person.phones, person.email, ids)) {
      if (this.#count === this.#hashes.length) {
        const grown = new Uint32Array(this.#hashes.length * 2);
        grown.set(this.#hashes);
        this.#hashes = grown;
      }
      this.#hashes[this.#count++] = hash;
    }
    if (!Number.isNaN(person.lat)) this.#box = extendBox(this.#box, person.lat, person.lon);
  }

  take(): ShardContacts {
    return { hashes: this.#hashes.slice(0, this.#count), box: this.#box };
  }
}

const cell = (record: readonly string[], at: number) => (at < 0 ? '' : (record[at] ?? ''));

const port = parentPort!;
const decoder = new TextDecoder();
let build: Build | null = null;

port.on('message', (message: Message) => {
  try {
    if ('begin' in message) {
      build = begin(message.begin.columns, message.begin.asOf, message.begin.contacts);
      return;
    }
    if (build === null) throw new Error('a build begins before its records');
    const { read, fieldColumns, builder, normalize, contacts } = build;
    if ('chunk' in message) {
      const text = decoder.decode(message.chunk);
      let row = message.firstRow;
      let start = 0;
      while (start < text.length) {
        let end = text.indexOf('\n', start);
        if (end < 0) end = text.length;
        const record = text.slice(start, end).split('\x1f', fieldColumns);
        const person = normalize(read(record));
        builder.add(row++, person);
        contacts?.add(record, person);
        start = end + 1;
      }
      port.postMessage({ ack: row - message.firstRow });
      return;
    }
    const segment = builder.finish();
    const gathered = contacts?.take() ?? null;
    build = null;
    if (message.finish === 'segment') {
      port.postMessage({ segment, contacts: gathered }, [
        ...segmentBuffers(segment),
        ...(gathered === null ? [] : [gathered.hashes.buffer as ArrayBuffer]),
      ]);
      return;
    }
    const data = mergeMatchIndexSegments([segment, ...message.segments]);
    // A whole file's voters by ZIP and birth date, stored so that no process opening it counts
    // them again (MatchIndex.countInSteps); a shard's (it gathers contacts) are the whole file's,
    // added once every shard is built (shard-file-statistics.ts).
    if (gathered === null) data.voterCounts = countVoters(data.fields);
    const { meta, parts } = matchIndexParts({ data });
    const names = [...parts.keys()];
    // Parts that own their whole buffer move without a copy; a view into a shared one is copied.
    const buffers = names.map((name) => {
      const part = parts.get(name)!;
      return part.byteOffset === 0 && part.byteLength === part.buffer.byteLength ? part : part.slice();
    });
    port.postMessage({ meta, names, buffers, contacts: gathered }, [
      ...buffers.map((b) => b.buffer as ArrayBuffer),
      ...(gathered === null ? [] : [gathered.hashes.buffer as ArrayBuffer]),
    ]);
  } catch (error) {
    port.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
});
