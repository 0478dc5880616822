import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Writable } from 'node:stream';
import type { JobSummary } from '../../domain/client-jobs/job-types.ts';
import type { AppendedField } from '../../domain/keys/key-types.ts';
import type { ListMatcher } from '../../domain/list-matching/block-runner.ts';
import { LineBuffer } from '../../domain/list-matching/line-buffer.ts';
import { type ListSummary, matchList } from '../../domain/list-matching/match-list.ts';
import { type AssembleBlockRunner, mergingMatcher } from '../../domain/list-matching/merge-chunks.ts';
import type { ClosableRouteBlockRunner } from '../../domain/list-matching/route-rows.ts';
import { prepareOnePass, type ShardedBlockRunner } from '../../domain/list-matching/sharded-in-one-pass.ts';
import {
  chunkName,
  chunksByShard,
  concatLines,
  DEFAULT_CHUNK_ROWS,
  fitList,
  matchChunk,
  routingMatcher,
} from '../../domain/list-matching/sharded-list.ts';
import type { ListFit } from '../../domain/matching/matcher.ts';
import type { ShardDirectory } from '../../domain/voters/shard-directory.ts';
import type { ShardMap } from '../../domain/voters/shard-map.ts';
import type { VoterSnapshot, VoterStore } from '../../domain/voters/voter-snapshot.ts';

export interface ShardedMatchInput {
  file: string;
  output: Writable;
  whole: VoterSnapshot;
  voters: VoterStore;
  /** A shard's matcher: to be fitted (null), or with the job's fit. */
  createMatcher: (shard: VoterSnapshot, listFit: ListFit | null) => ListMatcher;
  appendedFields: AppendedField[];
  maxMatches: number;
  /** The acceptance threshold (MATCH_THRESHOLD): the shards' candidates, weighed together, are held to it again. */
  thresholdScore: number;
  maxRowBytes: number;
  asOf: Date;
  /** Rows per chunk (the service's SHARD_CHUNK_ROWS), so the result is the service's. */
  chunkRows?: number;
  /** Merges and formats the assembly's blocks on the matching threads (undefined: on this thread). */
  assembleBlocks?: () => AssembleBlockRunner | undefined;
  /** Splits the list on the matching threads (undefined: on this thread). */
  routeBlocks?: (map: ShardMap, directory: ShardDirectory | null) => ClosableRouteBlockRunner | undefined;
  /**
   * Every shard of the map, loaded (loadEveryShard), when this process holds them all at once:
   * the list is then matched in one pass. Absent: the service's three steps, a shard at a time.
   */
  loadedShards?: readonly VoterSnapshot[];
  /** Runs the one pass's blocks on the matching threads (undefined: on this thread). */
  shardedBlocks?: (
    map: ShardMap,
    directory: ShardDirectory | null,
    shards: readonly { matcher: ListMatcher; columns: readonly number[] }[],
  ) => (ShardedBlockRunner & { close(): void }) | undefined;
}

type ShardedSummary = ListSummary & { shardRouting: JobSummary['shardRouting'] };

/**
 * `listmatch match` on a sharded voter file, with the service's result byte for byte: in one pass
 * when this process holds every shard (sharded-in-one-pass.ts), else the service's three steps
 * (split, chunks per shard, assemble) in this process with local files.
 */
export async function matchShardedLocally(input: ShardedMatchInput): Promise<ShardedSummary> {
  return input.loadedShards === undefined
    ? await matchInChunks(input)
    : await matchInOnePass(input, input.loadedShards);
}

/** The one pass (sharded-in-one-pass.ts): the sample read first, then the list once. */
async function matchInOnePass(
  input: ShardedMatchInput,
  shards: readonly VoterSnapshot[],
): Promise<ShardedSummary> {
  const options = { maxMatches: input.maxMatches, searchRadiusMiles: null, asOf: input.asOf };
  const matcher = await prepareOnePass({
    whole: input.whole,
    shards,
    createMatcher: input.createMatcher,
    sampleSource: createReadStream(input.file, { highWaterMark: 1 << 20 }),
    appendedFields: input.appendedFields,
    options,
    thresholdScore: input.thresholdScore,
    maxRowBytes: input.maxRowBytes,
    ...(input.shardedBlocks === undefined ? {} : { threads: input.shardedBlocks }),
  });
  const summary = await matchList({
    ...options,
    voters: input.whole,
    appendedFields: input.appendedFields,
    maxRowBytes: input.maxRowBytes,
    source: createReadStream(input.file, { highWaterMark: 1 << 20 }),
    output: input.output,
    matcher,
  }).finally(() => matcher.close());
  return { ...summary, shardRouting: { ...matcher.routing(), shards: input.whole.shardMap!.shards.length } };
}

/** The service's three steps in this process, through local chunk files. */
async function matchInChunks(input: ShardedMatchInput): Promise<ShardedSummary> {
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
    const rowsFile = (chunk: string) => join(dir, `${chunk}.rows.jsonl`);
    const matchesFile = (chunk: string) => join(dir, `${chunk}.matches.jsonl`);
    const buffers: LineBuffer[] = [];
    const directory = input.whole.shardDirectory ?? null;
    const threads = input.routeBlocks?.(map, directory);
    const router = routingMatcher(map, {
      directory,
      chunkRows: input.chunkRows ?? DEFAULT_CHUNK_ROWS,
      ...(threads === undefined ? {} : { threads }),
      openChunk: async (shard, n) => {
        const buffer = new LineBuffer(createWriteStream(rowsFile(chunkName(map.shards[shard]!.id, n))));
        buffers.push(buffer);
        return buffer;
      },
    });
    await matchList({
      ...common,
      source: createReadStream(input.file, { highWaterMark: 1 << 20 }),
      matcher: router,
    }).finally(() => threads?.close());
    for (const buffer of buffers) await buffer.end();
    const { chunks } = router.result();
    const options = { maxMatches: input.maxMatches, searchRadiusMiles: null, asOf: input.asOf };
    const openShard = async (shard: number) => {
      const snapshot = await input.voters.open(map.shards[shard]!.version);
      if (snapshot === null) throw new Error(`shard ${map.shards[shard]!.id} of the voter file is missing`);
      return snapshot;
    };
    // The job's model, fitted once on the fit chunk's shard (FitShard), as the service does.
    const { fitChunk } = router.result();
    let listFit: ListFit | null = null;
    let fitMatcher: ListMatcher | null = null;
    if (fitChunk !== null) {
      const shard = await openShard(chunks.find((chunk) => chunk.name === fitChunk)!.shard);
      fitMatcher = input.createMatcher(shard, null);
      listFit = await fitList(fitMatcher, lines(rowsFile(fitChunk)), options);
    }
    // The fit chunk first, as the service matches it (its matcher's shard is still open: opening
    // other shards may let it go); the results do not depend on the order.
    const inOrder = [
      ...chunks.filter((chunk) => chunk.name === fitChunk),
      ...chunks.filter((chunk) => chunk.name !== fitChunk),
    ];
    for (const chunk of inOrder) {
      const shard = await openShard(chunk.shard);
      const out = new LineBuffer(createWriteStream(matchesFile(chunk.name)));
      await matchChunk({
        lines: lines(rowsFile(chunk.name)),
        shard,
        matcher: chunk.name === fitChunk ? fitMatcher! : input.createMatcher(shard, listFit),
        appendedSources: input.appendedFields.map((field) => field.source),
        options,
        write: (line) => {
          out.write(line);
          return out.ready();
        },
      });
      await out.end();
    }
    const streams = chunksByShard(chunks.map((chunk) => chunk.name)).map((names) =>
      concatLines(names.map((name) => () => lines(matchesFile(name)))),
    );
    const summary = await matchList({
      ...common,
      source: createReadStream(input.file, { highWaterMark: 1 << 20 }),
      output: input.output,
      matcher: mergingMatcher(streams, input.thresholdScore, input.assembleBlocks?.()),
    });
    const { rows, shardRows, everywhere } = router.result();
    return { ...summary, shardRouting: { rows, shardRows, everywhere, shards: map.shards.length } };
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
