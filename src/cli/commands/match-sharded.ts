import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Writable } from 'node:stream';
import type { AppendedField } from '../../domain/keys/key-types.ts';
import type { Matcher } from '../../domain/matching/matcher.ts';
import { type ListSummary, matchList } from '../../domain/pipeline/match-list.ts';
import { matchChunk, mergingMatcher, routingMatcher } from '../../domain/pipeline/sharded-list.ts';
import type { VoterSnapshot, VoterStore } from '../../domain/voters/voter-snapshot.ts';
import { LineBuffer } from '../../jobs/line-buffer.ts';

export interface ShardedMatchInput {
  file: string;
  output: Writable;
  whole: VoterSnapshot;
  voters: VoterStore;
  createMatcher: (shard: VoterSnapshot) => Matcher;
  appendedFields: AppendedField[];
  maxMatches: number;
  maxRowBytes: number;
  asOf: Date;
}

/**
 * `listmatch match` on a sharded voter file: the service's three steps (split, a chunk per shard,
 * assemble) in this process with local files, so the result is the service's, byte for byte.
 */
export async function matchShardedLocally(input: ShardedMatchInput): Promise<ListSummary> {
  const map = input.whole.shardMap!;
  const dir = await mkdtemp(join(tmpdir(), 'listmatch-chunks-'));
  const common = {
    voters: input.whole,
    appendedFields: input.appendedFields,
    maxMatches: input.maxMatches,
    searchRadiusMiles: null,
    maxRowBytes: input.maxRowBytes,
    asOf: input.asOf,
  };
  try {
    const rowsFile = (i: number) => join(dir, `${map.shards[i]!.id}.rows.jsonl`);
    const matchesFile = (i: number) => join(dir, `${map.shards[i]!.id}.matches.jsonl`);
    const buffers = map.shards.map((_, i) => new LineBuffer(createWriteStream(rowsFile(i))));
    const router = routingMatcher(map, buffers);
    await matchList({
      ...common,
      source: createReadStream(input.file, { highWaterMark: 1 << 20 }),
      matcher: router,
    });
    for (const buffer of buffers) await buffer.end();
    const used = map.shards.map((_, i) => i).filter((i) => router.rowsPerShard[i]! > 0);
    for (const i of used) {
      const shard = await input.voters.open(map.shards[i]!.version);
      if (shard === null) throw new Error(`shard ${map.shards[i]!.id} of the voter file is missing`);
      const out = new LineBuffer(createWriteStream(matchesFile(i)));
      await matchChunk({
        lines: lines(rowsFile(i)),
        shard,
        matcher: input.createMatcher(shard),
        appendedSources: input.appendedFields.map((field) => field.source),
        options: { maxMatches: input.maxMatches, searchRadiusMiles: null, asOf: input.asOf },
        write: (line) => {
          out.write(line);
          return out.ready();
        },
      });
      await out.end();
    }
    return await matchList({
      ...common,
      source: createReadStream(input.file, { highWaterMark: 1 << 20 }),
      output: input.output,
      matcher: mergingMatcher(used.map((i) => lines(matchesFile(i)))),
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function* lines(path: string): AsyncGenerator<string> {
  const input = createReadStream(path);
  try {
    for await (const line of createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })) {
      if (line !== '') yield line;
    }
  } finally {
    input.destroy();
  }
}
