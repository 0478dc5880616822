import { parentPort } from 'node:worker_threads';
import { voterFieldColumns, voterFieldReader } from '../../domain/matching/index/build-match-index.ts';
import { matchIndexParts } from '../../domain/matching/index/match-index-parts.ts';
import {
  type MatchIndexSegment,
  MatchIndexSegmentBuilder,
  segmentBuffers,
} from '../../domain/matching/index/match-index-segment.ts';
import { mergeMatchIndexSegments } from '../../domain/matching/index/merge-match-index-segments.ts';
import { voterNormalizer } from '../../domain/matching/normalize/person.ts';

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
 * In: { begin: { columns, asOf } }, { chunk, firstRow } … then { finish: 'segment' } or
 * { finish: 'merge', segments }; then the next build's begin.
 * Out: { ack: rows } … then { segment } or { meta, names, buffers }, or { error }.
 */
type Message =
  | { begin: { columns: string[]; asOf: string } }
  | { chunk: Uint8Array; firstRow: number }
  | { finish: 'segment' }
  | { finish: 'merge'; segments: MatchIndexSegment[] };

/** What one build reads its records with and adds them to. */
interface Build {
  read: ReturnType<typeof voterFieldReader>;
  fieldColumns: number;
  builder: MatchIndexSegmentBuilder;
  normalize: ReturnType<typeof voterNormalizer>;
}

function begin(columns: string[], asOf: string): Build {
  return {
    read: voterFieldReader(columns),
    fieldColumns: voterFieldColumns(columns),
    builder: new MatchIndexSegmentBuilder(),
    normalize: voterNormalizer(new Date(asOf)),
  };
}

const port = parentPort!;
const decoder = new TextDecoder();
let build: Build | null = null;

port.on('message', (message: Message) => {
  try {
    if ('begin' in message) {
      build = begin(message.begin.columns, message.begin.asOf);
      return;
    }
    if (build === null) throw new Error('a build begins before its records');
    const { read, fieldColumns, builder, normalize } = build;
    if ('chunk' in message) {
      const text = decoder.decode(message.chunk);
      let row = message.firstRow;
      let start = 0;
      while (start < text.length) {
        let end = text.indexOf('\n', start);
        if (end < 0) end = text.length;
        builder.add(row++, normalize(read(text.slice(start, end).split('\x1f', fieldColumns))));
        start = end + 1;
      }
      port.postMessage({ ack: row - message.firstRow });
      return;
    }
    const segment = builder.finish();
    build = null;
    if (message.finish === 'segment') {
      port.postMessage({ segment }, segmentBuffers(segment));
      return;
    }
    const { meta, parts } = matchIndexParts({
      data: mergeMatchIndexSegments([segment, ...message.segments]),
    });
    const names = [...parts.keys()];
    // Parts that own their whole buffer move without a copy; a view into a shared one is copied.
    const buffers = names.map((name) => {
      const part = parts.get(name)!;
      return part.byteOffset === 0 && part.byteLength === part.buffer.byteLength ? part : part.slice();
    });
    port.postMessage(
      { meta, names, buffers },
      buffers.map((b) => b.buffer as ArrayBuffer),
    );
  } catch (error) {
    port.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
});
