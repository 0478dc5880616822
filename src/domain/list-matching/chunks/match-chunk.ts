import type { ListFit, Matcher, MatchInput } from '../../matching/matcher.ts';
import type { VoterSnapshot } from '../../voters/voter-snapshot.ts';
import { chunkOutcomeOf, inputOfLine } from '../chunk-lines.ts';
import { type ListRun, matchOptionsOf } from '../list-run.ts';
import { type EvidenceMatcher, fitOn, type ShardEvidence } from '../stages/fit.ts';

/** Rows matched per batch of a chunk on this thread. */
const CHUNK_BATCH_ROWS = 2000;
/** Batches of a chunk on the matching threads at once, while this thread writes the oldest. */
const CHUNK_BATCHES_IN_FLIGHT = 4;
/**
 * Rows per batch when whole batches run on the threads (ChunkBatchRunner): smaller, so that a
 * chunk of a few thousand rows (a small state's part of a list) still keeps every thread busy.
 */
const THREAD_BATCH_ROWS = 500;
/** Batches in flight per thread of a ChunkBatchRunner. */
const THREAD_BATCHES_PER_THREAD = 2;

/**
 * Runs batches of a chunk (its input lines → its output lines) on the matching threads, which
 * each hold the shard: this thread then only cuts the lines into batches and writes the answers.
 */
export interface ChunkBatchRunner {
  /** Batches it works on at once. */
  readonly parallelism: number;
  /** One batch of input lines: the output lines, each ending in a newline. */
  run(lines: readonly string[], columns: readonly number[], run: ListRun): Promise<string>;
}

export interface MatchChunkInput {
  /** The chunk's lines as the split step wrote them. */
  lines: AsyncIterable<string>;
  shard: VoterSnapshot;
  /** The shard's matcher, with the list's model (fitted on the sample: fitChunk, or given its fit). */
  matcher: Matcher;
  /** Runs whole batches on the threads (absent: here, through `matcher`). */
  threads?: ChunkBatchRunner;
  run: ListRun;
  /** Receives the output lines, a batch's at a time, each ending in a newline; waits when the writer is behind. */
  write: (lines: string) => void | Promise<void>;
  onProgress?: (rows: number) => void;
}

/**
 * The evidence step: what a shard's part of the list's sample tells the fit (the rows of its first
 * chunk, or of its reach chunk (`reached`), up to `lastSampleRow`: stages/fit.ts fitFromShards
 * weighs every shard's together). Every such row no id of this shard matches is weighed, whether
 * or not another shard's id matches it.
 */
export async function chunkEvidence(
  matcher: EvidenceMatcher,
  lines: AsyncIterable<string>,
  lastSampleRow: number,
  run: ListRun,
  reached = false,
): Promise<ShardEvidence> {
  const rows: MatchInput[] = [];
  const asOf = new Date(run.asOf);
  for await (const text of lines) {
    const row = inputOfLine(text, asOf);
    if (row.row > lastSampleRow) break;
    rows.push(row);
  }
  // A reach chunk's rows (a radius reaching this shard: place.ts) are weighed here, but their ids
  // are looked up where they were routed, as in one process (fitList).
  const idMatched = reached ? new Set<number>() : matcher.idMatched(rows);
  const weighed = rows.filter((row) => !idMatched.has(row.row));
  return {
    idMatched: [...idMatched],
    rows: weighed.length === 0 ? [] : await matcher.sampleEvidence(weighed, matchOptionsOf(run)),
  };
}

/**
 * A chunk enqueued by an earlier version (the job's model fitted on one shard's part): fits
 * `matcher` on the first `sampleRows` rows of the chunk and returns what it learned.
 */
export async function fitChunk(
  matcher: Matcher,
  sampleLines: AsyncIterable<string>,
  run: ListRun,
  sampleRows: number,
): Promise<ListFit> {
  const sample: MatchInput[] = [];
  for await (const text of sampleLines) {
    sample.push(inputOfLine(text, new Date(run.asOf)));
    if (sample.length >= sampleRows) break;
  }
  const fit = await fitOn(matcher, sample, run);
  if (fit === null) throw new Error('the matcher of a sharded list learned nothing from its sample');
  return fit;
}

/**
 * The match step: one chunk against its shard (the match stage's matching, without the route,
 * merge and format the assembly does), batch by batch, several in flight, the output lines
 * written in order. Returns the rows matched.
 */
export async function matchChunk(input: MatchChunkInput): Promise<number> {
  const columns = chunkColumnsOf(input);
  const threads = input.threads;
  const { runner, batchRows, room } =
    threads === undefined
      ? {
          runner: (lines: readonly string[]) =>
            matchChunkBatch(lines, columns, input.matcher, input.shard, input.run),
          batchRows: CHUNK_BATCH_ROWS,
          room: CHUNK_BATCHES_IN_FLIGHT,
        }
      : {
          runner: (lines: readonly string[]) => threads.run(lines, columns, input.run),
          batchRows: THREAD_BATCH_ROWS,
          room: Math.max(1, threads.parallelism) * THREAD_BATCHES_PER_THREAD,
        };
  const inFlight: { rows: number; lines: Promise<string> }[] = [];
  let rows = 0;
  const writeOldest = async () => {
    const oldest = inFlight.shift()!;
    await input.write(await oldest.lines);
    rows += oldest.rows;
    input.onProgress?.(rows);
  };
  const send = (batch: string[]) => {
    const lines = runner(batch);
    // Awaited in order by writeOldest; a failure before its turn must not go unhandled meanwhile.
    lines.catch(() => {});
    inFlight.push({ rows: batch.length, lines });
  };
  try {
    let batch: string[] = [];
    for await (const text of input.lines) {
      batch.push(text);
      if (batch.length < batchRows) continue;
      send(batch);
      batch = [];
      if (inFlight.length >= room) await writeOldest();
    }
    if (batch.length > 0) send(batch);
    while (inFlight.length > 0) await writeOldest();
  } finally {
    inFlight.length = 0;
  }
  return rows;
}

/** The shard's columns each candidate carries: voterbase_id, the appended, the state. */
function chunkColumnsOf(input: MatchChunkInput): number[] {
  const { shard, run } = input;
  return [
    shard.columnIndex('voterbase_id'),
    ...run.appendedFields.map((field) => shard.columnIndex(field.source)),
    shard.columnIndex('state'),
  ];
}

/** One batch of a chunk matched where it runs (this thread, or a matching thread): its output lines. */
export async function matchChunkBatch(
  lines: readonly string[],
  columns: readonly number[],
  matcher: Matcher,
  shard: VoterSnapshot,
  run: ListRun,
): Promise<string> {
  const asOf = new Date(run.asOf);
  const rows = lines.map((line) => inputOfLine(line, asOf));
  const outcomes = await matcher.matchBatch(rows, matchOptionsOf(run));
  let text = '';
  for (let i = 0; i < rows.length; i++) {
    text += `${JSON.stringify(chunkOutcomeOf(rows[i]!.row, outcomes[i]!, shard, columns))}\n`;
  }
  return text;
}
