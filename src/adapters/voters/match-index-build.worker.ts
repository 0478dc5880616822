import { parentPort, workerData } from 'node:worker_threads';
import { voterFieldReader } from '../../domain/matching/index/build-match-index.ts';
import { MatchIndexBuilder } from '../../domain/matching/index/match-index.ts';
import { matchIndexParts } from '../../domain/matching/index/match-index-parts.ts';
import { voterNormalizer } from '../../domain/matching/normalize/person.ts';

/**
 * Builds the match index on its own thread while the import thread parses the CSV and writes
 * the records: it receives the records file's bytes chunk by chunk (lines of fields joined by
 * U+001F, exactly as written), and answers each chunk with an ack (the import's flow control)
 * and, at the end, the index parts as transferred buffers.
 *
 * Messages in: { chunk: Uint8Array } … { finish: true }. Out: { ack: rows } … { meta, parts }.
 */
const port = parentPort!;
const { columns, asOf } = workerData as { columns: string[]; asOf: string };
const read = voterFieldReader(columns);
const builder = new MatchIndexBuilder();
const normalize = voterNormalizer(new Date(asOf));
const decoder = new TextDecoder();
let row = 0;

port.on('message', (message: { chunk?: Uint8Array; finish?: boolean }) => {
  try {
    if (message.chunk !== undefined) {
      const text = decoder.decode(message.chunk);
      let start = 0;
      let rows = 0;
      while (start < text.length) {
        let end = text.indexOf('\n', start);
        if (end < 0) end = text.length;
        builder.add(row++, normalize(read(text.slice(start, end).split('\x1f'))));
        rows++;
        start = end + 1;
      }
      port.postMessage({ ack: rows });
      return;
    }
    if (message.finish) {
      const { meta, parts } = matchIndexParts({ data: builder.finishData() });
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
    }
  } catch (error) {
    port.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
});
