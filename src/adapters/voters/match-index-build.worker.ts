import { parentPort, workerData } from 'node:worker_threads';
import { voterFieldColumns, voterFieldReader } from '../../domain/matching/index/build-match-index.ts';
import { matchIndexParts } from '../../domain/matching/index/match-index-parts.ts';
import {
  type MatchIndexShard,
  MatchIndexShardBuilder,
  shardBuffers,
} from '../../domain/matching/index/match-index-shard.ts';
import { mergeMatchIndexShards } from '../../domain/matching/index/merge-match-index-shards.ts';
import { voterNormalizer } from '../../domain/matching/normalize/person.ts';

/**
 * One shard builder of the match index (see match-index-threads.ts). It receives chunks of the
 * records file's bytes (whole lines of fields joined by U+001F, exactly as written) with the
 * voter number of their first line, and answers each with an ack (the sender's flow control).
 * At the end, a shard thread sends its shard; the merging thread (one per build) receives the
 * other shards, merges them with its own and sends the index parts. Everything large moves by
 * transfer, not copy.
 *
 * In: { chunk, firstRow } … then { finish: 'shard' } or { finish: 'merge', shards }.
 * Out: { ack: rows } … then { shard } or { meta, names, buffers }, or { error }.
 */
type Message =
  | { chunk: Uint8Array; firstRow: number }
  | { finish: 'shard' }
  | { finish: 'merge'; shards: MatchIndexShard[] };

const port = parentPort!;
const { columns, asOf } = workerData as { columns: string[]; asOf: string };
const read = voterFieldReader(columns);
const fieldColumns = voterFieldColumns(columns);
const builder = new MatchIndexShardBuilder();
const normalize = voterNormalizer(new Date(asOf));
const decoder = new TextDecoder();

port.on('message', (message: Message) => {
  try {
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
    const shard = builder.finish();
    if (message.finish === 'shard') {
      port.postMessage({ shard }, shardBuffers(shard));
      return;
    }
    const { meta, parts } = matchIndexParts({ data: mergeMatchIndexShards([shard, ...message.shards]) });
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
