/**
 * A contact list matched against a sharded voter file, in three steps that may run in different
 * processes: split (each row to the chunks of the shards it is routed to), match (each chunk
 * against its shard's snapshot, alone) and assemble (the upload read again, each row's outcomes
 * merged, written as an unsharded job writes). Chunks are JSON lines, in input row order.
 * The embedded service runs the same three steps through its own queue, so both give the same bytes.
 */
import type { Matcher, MatchInput, MatchOptions, MatchOutcome } from '../matching/matcher.ts';
import { routeRow, type ShardMap } from '../voters/shard-map.ts';
import type { VoterSnapshot } from '../voters/voter-snapshot.ts';

/**
 * Rows matched per batch in a chunk. The first batch is the EM sample: about what an unsharded
 * job samples (its first 256 KiB of file, a few thousand rows), so a chunk does not spend more
 * on fitting its model than on matching.
 */
export const CHUNK_BATCH_ROWS = 2000;

/** A chunk's input line: the row number and the identifier cells the header provided. */
interface ChunkRow {
  r: number;
  f: MatchInput['fields'];
}

/**
 * A chunk's output line: one per input row, candidates best first, each with the voter values the
 * assembled result needs (voterbase_id, the appended fields, then the voter's state).
 */
interface ChunkOutcome {
  r: number;
  /** [score, method, explain, values]. */
  c: [number, string, string, string[]][];
  u?: string;
  p?: string[];
  b?: number;
}

/**
 * The split step's matcher: writes every row to the chunk of each shard it is routed to and
 * returns no match. Run through matchList, it validates the file exactly as an unsharded job does.
 */
/** Where the split writes one shard's chunk (a LineBuffer over a blob or a file). */
export interface ChunkSink {
  write(line: string): void;
  /** Resolves when the sink has room again (awaited after each batch). */
  ready(): Promise<void>;
}

export function routingMatcher(
  map: ShardMap,
  chunks: readonly ChunkSink[],
): Matcher & { rowsPerShard: number[] } {
  const rowsPerShard = map.shards.map(() => 0);
  return {
    name: 'routing',
    rowsPerShard,
    async matchBatch(rows) {
      for (const row of rows) {
        const line = `${JSON.stringify({ r: row.row, f: row.fields } satisfies ChunkRow)}\n`;
        for (const shard of routeRow(map, {
          state: row.fields.state,
          zip: row.fields.zip,
          voterbaseId: row.fields.voterbase_id,
          latitude: row.fields.latitude,
          longitude: row.fields.longitude,
          contact: row.fields.phone !== undefined || row.fields.email !== undefined,
        })) {
          rowsPerShard[shard]!++;
          chunks[shard]!.write(line);
        }
      }
      for (const chunk of chunks) await chunk.ready();
      return rows.map(() => ({ candidates: [] }));
    },
  };
}

export interface MatchChunkInput {
  /** The chunk's lines as the split step wrote them. */
  lines: AsyncIterable<string>;
  shard: VoterSnapshot;
  matcher: Matcher;
  /** Voter columns appended to the result, by source name (absent from the shard: ''). */
  appendedSources: readonly string[];
  options: MatchOptions;
  /** Receives each output line; waits when the writer is behind. */
  write: (line: string) => void | Promise<void>;
  onProgress?: (rows: number) => void;
}

/** The match step: one chunk against its shard, batch by batch. Returns the rows matched. */
export async function matchChunk(input: MatchChunkInput): Promise<number> {
  const { shard } = input;
  const columns = [
    shard.columnIndex('voterbase_id'),
    ...input.appendedSources.map((source) => shard.columnIndex(source)),
    shard.columnIndex('state'),
  ];
  let batch: MatchInput[] = [];
  let rows = 0;
  const flush = async () => {
    const outcomes = await input.matcher.matchBatch(batch, input.options);
    for (let i = 0; i < batch.length; i++) {
      const outcome = outcomes[i]!;
      const line: ChunkOutcome = {
        r: batch[i]!.row,
        c: outcome.candidates.map((c) => [
          c.score,
          c.method,
          c.explain ?? '',
          shard.fields(c.voter, columns),
        ]),
      };
      if (outcome.unmatchedReason !== undefined) line.u = outcome.unmatchedReason;
      if (outcome.problems !== undefined && outcome.problems.length > 0) line.p = outcome.problems;
      if (outcome.bestCount !== undefined) line.b = outcome.bestCount;
      await input.write(`${JSON.stringify(line)}\n`);
    }
    rows += batch.length;
    input.onProgress?.(rows);
    batch = [];
  };
  for await (const text of input.lines) {
    const row = JSON.parse(text) as ChunkRow;
    batch.push({ row: row.r, fields: row.f });
    if (batch.length >= CHUNK_BATCH_ROWS) await flush();
  }
  if (batch.length > 0) await flush();
  return rows;
}

/**
 * The assemble step's matcher: reads the chunks' outcomes (each in row order) alongside the
 * upload and merges each row's. Its candidates carry their voter values, so no shard is loaded.
 */
export function mergingMatcher(outcomes: AsyncIterator<string>[]): Matcher {
  const heads: (ChunkOutcome | null | undefined)[] = outcomes.map(() => undefined);
  const peek = async (i: number): Promise<ChunkOutcome | null> => {
    if (heads[i] === undefined) {
      const next = await outcomes[i]!.next();
      heads[i] = next.done ? null : (JSON.parse(next.value) as ChunkOutcome);
    }
    return heads[i]!;
  };
  // matchList asks for the next batch before the last one is done: batches take turns on the streams.
  let previous: Promise<unknown> = Promise.resolve();
  return {
    name: 'merged',
    matchBatch(rows, options) {
      const turn = previous.then(() => merge(rows, options));
      previous = turn.catch(() => {});
      return turn;
    },
  };

  async function merge(rows: readonly MatchInput[], options: MatchOptions): Promise<MatchOutcome[]> {
    const merged: MatchOutcome[] = [];
    for (const row of rows) {
      const found: MatchOutcome[] = [];
      for (let i = 0; i < outcomes.length; i++) {
        const head = await peek(i);
        if (head === null || head.r !== row.row) continue;
        heads[i] = undefined;
        found.push({
          candidates: head.c.map(([score, method, explain, values]) => ({
            voter: -1,
            score,
            method,
            ...(explain === '' ? {} : { explain }),
            values,
          })),
          ...(head.u === undefined ? {} : { unmatchedReason: head.u }),
          ...(head.p === undefined ? {} : { problems: head.p }),
          ...(head.b === undefined ? {} : { bestCount: head.b }),
        });
      }
      if (found.length === 0) throw new Error(`no chunk holds the outcome of row ${row.row}`);
      merged.push(mergeOutcomes(found, options.maxMatches));
    }
    return merged;
  }
}

/** Unmatched reasons from most to least telling, when a row's shards disagree. */
const REASON_ORDER = ['below_threshold', 'no_candidates', 'name_only'];

/**
 * One row's outcome from its shards' (in shard order). One shard: as it is. Several: candidates
 * of every shard by score (ties: shard order, then rank), the best `maxMatches`; no candidate
 * anywhere: the most telling reason. Input problems are the row's, the same from every shard,
 * plus any a shard added (an id whose record disagrees on the name).
 */
export function mergeOutcomes(outcomes: readonly MatchOutcome[], maxMatches: number): MatchOutcome {
  if (outcomes.length === 1) return outcomes[0]!;
  const problems = [...new Set(outcomes.flatMap((o) => o.problems ?? []))];
  const withProblems = problems.length === 0 ? {} : { problems };
  const matched = outcomes.filter((o) => o.candidates.length > 0);
  if (matched.length === 1) {
    const { problems: _ignored, ...rest } = matched[0]!;
    return { ...rest, ...withProblems };
  }
  if (matched.length === 0) {
    const reasons = outcomes.map((o) => o.unmatchedReason ?? 'no_match');
    const rank = (reason: string) => {
      const at = REASON_ORDER.indexOf(reason);
      return at === -1 ? REASON_ORDER.length : at;
    };
    const reason = reasons.reduce((best, next) => (rank(next) < rank(best) ? next : best));
    return { candidates: [], unmatchedReason: reason, ...withProblems };
  }
  const candidates = matched
    .flatMap((o) => o.candidates)
    .map((candidate, order) => ({ candidate, order }))
    .sort((a, b) => b.candidate.score - a.candidate.score || a.order - b.order)
    .slice(0, maxMatches)
    .map(({ candidate }) => candidate);
  return { candidates, ...withProblems };
}
