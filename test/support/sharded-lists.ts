/**
 * A small voter file in two state shards (NC, VA), a list over it, and its three steps (split,
 * chunks, assembly) run in memory: shared by the tests of the sharded-list steps and of the one pass.
 */
import { PassThrough, Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { type BlockExecutor, inThread } from '../../src/domain/list-matching/block-executor.ts';
import { splitBlock } from '../../src/domain/list-matching/block-stages.ts';
import {
  type AssembleBlockRunner,
  assembleList,
} from '../../src/domain/list-matching/chunks/assemble-list.ts';
import { chunkEvidence, matchChunk } from '../../src/domain/list-matching/chunks/match-chunk.ts';
import {
  chunkName,
  chunksByShard,
  concatLines,
  shardOfChunk,
  splitList,
} from '../../src/domain/list-matching/chunks/split-list.ts';
import { type ListRun, listRun } from '../../src/domain/list-matching/list-run.ts';
import { fitFromShards, type ShardEvidence } from '../../src/domain/list-matching/stages/fit.ts';
import { shardRouter } from '../../src/domain/list-matching/stages/route.ts';
import { buildMatchIndex } from '../../src/domain/matching/index/build-match-index.ts';
import type { ListFit } from '../../src/domain/matching/matcher.ts';
import {
  createProbabilisticMatcher,
  DEFAULT_THRESHOLD_SCORE,
} from '../../src/domain/matching/probabilistic-matcher.ts';
import { InMemoryVoterSnapshot } from '../../src/domain/voters/in-memory-voter-snapshot.ts';
import type { ShardDirectory } from '../../src/domain/voters/shard-directory.ts';
import type { ShardMap } from '../../src/domain/voters/shard-map.ts';
import { ShardedVoterSnapshot } from '../../src/domain/voters/sharded-voter-snapshot.ts';
import type { VoterSnapshot } from '../../src/domain/voters/voter-snapshot.ts';

/** Rows of each shard's sample in these tests (the service's is SAMPLE_ROWS). */
export const SAMPLE = 3;

export const COLUMNS = [
  'voterbase_id',
  'state',
  'first_name',
  'last_name',
  'address1',
  'city',
  'zip',
  'dob',
  'email',
  'party',
];
export const NC = new InMemoryVoterSnapshot(
  COLUMNS,
  [
    [
      'NC-1',
      'NC',
      'MARGARET',
      'SMITH',
      '12 OAK ST',
      'RALEIGH',
      '27601',
      '19610412',
      'peggy@example.com',
      'DEM',
    ],
    ['NC-2', 'NC', 'ROBERT', 'JONES', '40 ELM ST', 'DURHAM', '27701', '19700101', '', 'REP'],
    ['NC-3', 'NC', 'ROBERTA', 'JONES', '40 ELM ST', 'DURHAM', '27701', '19720505', '', 'UNA'],
  ],
  'v1-a-nc',
);
export const VA = new InMemoryVoterSnapshot(
  COLUMNS,
  [
    ['VA-1', 'VA', 'MARGARET', 'SMITH', '9 PINE RD', 'RICHMOND', '23220', '19610412', '', 'IND'],
    ['VA-2', 'VA', 'ALAN', 'BROWN', '1 MAIN ST', 'NORFOLK', '23510', '19800303', 'alan@example.com', 'DEM'],
  ],
  'v1-a-va',
);
export const SHARDS: Record<string, VoterSnapshot> = { 'v1-a-nc': NC, 'v1-a-va': VA };
export const MAP: ShardMap = {
  shards: [
    {
      id: 'nc',
      state: 'NC',
      zip3From: '',
      zip3To: '',
      rows: 3,
      version: 'v1-a-nc',
      memoryBytes: 0,
      box: [35.77, -78.9, 36.0, -78.63],
    },
    {
      id: 'va',
      state: 'VA',
      zip3From: '',
      zip3To: '',
      rows: 2,
      version: 'v1-a-va',
      memoryBytes: 0,
      box: [36.85, -77.44, 37.54, -76.28],
    },
  ],
  zip3States: { '276': ['NC'], '277': ['NC'], '232': ['VA'], '235': ['VA'] },
};
export const WHOLE = new ShardedVoterSnapshot(
  { version: 'v1-a', columns: COLUMNS, rows: 5, shards: MAP },
  async (v) => SHARDS[v] ?? null,
);
export const LIST = [
  'matchback_id,first_name,last_name,address1,city,state,zip,email',
  'a,Margaret,Smith,12 Oak St,Raleigh,NC,27601,', // NC only
  'b,Robert,Jones,40 Elm St,Durham,,27701,', // NC by its ZIP
  'c,Alan,Brown,,,,,alan@example.com', // no state: every shard
  'd,Margaret,Smith,9 Pine Rd,Richmond,VA,23220,', // VA only
].join('\n');
export const OPTIONS = { maxMatches: 2, searchRadiusMiles: null, asOf: new Date('2026-01-01T00:00:00Z') };
export const APPENDED = [{ source: 'party', as: 'party' }];

/** The run of these tests' lists: `options`, the party appended, samples of SAMPLE rows. */
export const runOf = (options = OPTIONS, outputs: Partial<ListRun['outputs']> = {}): ListRun =>
  listRun({
    ...options,
    thresholdScore: DEFAULT_THRESHOLD_SCORE,
    appendedFields: APPENDED,
    maxRowBytes: 1 << 20,
    sampleRows: SAMPLE,
    outputs,
  });

export const matcherFor = (snapshot: VoterSnapshot, listFit: ListFit | null = null) =>
  createProbabilisticMatcher(snapshot, buildMatchIndex(snapshot), listFit === null ? {} : { listFit });

export async function* linesOf(lines: string[]): AsyncGenerator<string> {
  for (const line of lines) yield line.trimEnd();
}

/** The split stage of WHOLE's map on the calling thread. */
export const splitHere = (directory: ShardDirectory | null = null): BlockExecutor =>
  inThread((block, spec) => splitBlock(block, spec, shardRouter(MAP, directory)));

/**
 * The queue's three steps in memory: split (chunks of `chunkRows`), the job's model fitted on the
 * fit chunk's first SAMPLE rows, each chunk against its shard, assemble. `chunks` gives each
 * shard's rows, its chunks one after the other.
 */
export async function matchSharded(
  csv: string,
  options = OPTIONS,
  chunkRows = 1000,
  directory: ShardDirectory | null = null,
  split: BlockExecutor = splitHere(directory),
  assemble?: AssembleBlockRunner,
): Promise<{
  result: string;
  chunks: string[][];
  names: string[];
  sampleChunks: string[];
  listFit: ListFit | null;
}> {
  const written = new Map<string, string[]>();
  const run = runOf(options);
  const splitResult = await splitList({
    source: Readable.from([Buffer.from(csv)]),
    run,
    voters: WHOLE,
    executor: split,
    chunkRows,
    openChunk: async (shard, n) => {
      const lines: string[] = [];
      written.set(chunkName(MAP.shards[shard]!.id, n), lines);
      return { write: (line: string) => lines.push(line), ready: async () => {} };
    },
  });
  const { chunks: routed, sample } = splitResult;
  const names = routed.map((chunk) => chunk.name);
  const shardOf = (name: string) => SHARDS[MAP.shards.find((s) => s.id === shardOfChunk(name))!.version]!;
  // The job's model, as the service fits it: each sample chunk's evidence step, then the fit.
  const evidence: ShardEvidence[] = [];
  for (const name of sample.chunks) {
    evidence.push(
      await chunkEvidence(matcherFor(shardOf(name)), linesOf(written.get(name)!), sample.rows.at(-1)!, run),
    );
  }
  const listFit = sample.chunks.length === 0 ? null : fitFromShards(sample.rows, evidence);
  const outputs = new Map<string, string[]>();
  for (const name of names) {
    const shard = shardOf(name);
    const out: string[] = [];
    await matchChunk({
      lines: linesOf(written.get(name)!),
      shard,
      matcher: matcherFor(shard, listFit),
      run,
      // One or more lines a call, each ending in a newline.
      write: (lines) => {
        out.push(...lines.split(/(?<=\n)/));
      },
    });
    outputs.set(name, out);
  }
  const output = new PassThrough();
  const result = text(output);
  const groups = chunksByShard(names);
  await assembleList({
    source: Readable.from([Buffer.from(csv)]),
    run: runOf(options, { every: true }),
    voters: WHOLE,
    sinks: { output },
    streams: groups.map((group) => concatLines(group.map((name) => () => linesOf(outputs.get(name)!)))),
    ...(assemble === undefined ? {} : { threads: assemble }),
  });
  const chunks = MAP.shards.map((shard) =>
    names.filter((name) => shardOfChunk(name) === shard.id).flatMap((name) => written.get(name)!),
  );
  return { result: await result, chunks, names, sampleChunks: sample.chunks, listFit };
}
