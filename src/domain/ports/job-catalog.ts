import type { AppendedField } from '../keys/key-types.ts';
import type { ListRun } from '../list-matching/list-run.ts';
import type { ListFit } from '../matching/matcher.ts';
import type { QueueMessage } from './queue.ts';

/**
 * Every job the service puts on its queue, in one place: the type the queue knows it by and the
 * payload it carries. Producers (the job service, the notices, the job handlers that hand work
 * on) build their messages with `jobMessage`, which checks the payload against this catalog;
 * each type's handler is `src/jobs/<type>.job.ts`, whose payload schema is declared against the
 * same payload type (so the two cannot drift apart). A payload carries its version (`v`): a
 * handler reads every version still in flight.
 */

export const MATCH_LIST_JOB = 'match-list';
/** One shard's chunks of a list: the queue type is `match-chunk.<shard>` (matchChunkType). */
export const MATCH_CHUNK_JOB = 'match-chunk';
export const ASSEMBLE_LIST_JOB = 'assemble-list';
export const ONBOARD_AUDIENCE_JOB = 'onboard-audience';
export const CHECK_AUDIENCE_JOB = 'check-audience';
export const MBP_AUDIENCE_JOB = 'mbp-audience';
export const DELIVER_WEBHOOK_JOB = 'deliver-webhook';
export const DELIVER_FOLDER_JOB = 'deliver-folder';
export const SEND_NOTICE_JOB = 'send-notice';

/** A member of a family of types (`<type>.<name>`: one queue per name, one handler for all). */
const familyType = (type: string, name: string): string => `${type}.${name}`;

/** The queue of one shard's chunks. */
export const matchChunkType = (shard: string): string => familyType(MATCH_CHUNK_JOB, shard);

/** The payload of the jobs that work on one client job (list or audience). */
export interface JobRef {
  v: 1;
  jobId: string;
}

/** What every chunk of a sharded list's job carries (fixed at the split, so all chunks agree). */
export interface ChunkSpec {
  v: 2;
  jobId: string;
  /** The sharded voter file version the job pinned. */
  version: string;
  /**
   * The chunks that got rows, in map order then chunk order (names: `nc`, `nc.1`, …, see
   * chunkName): the ones the assembly waits for.
   */
  chunks: string[];
  /** How the split routed the rows (reported in the summary). */
  routing?: { rows: number; shardRows: number; everywhere: number };
  /**
   * The list's sample (stages/fit.ts): its rows' numbers, and the first chunks of the shards they
   * went to. The split enqueues an evidence step for each of those chunks; the last to finish fits
   * the job's model and enqueues every chunk with `listFit`.
   */
  sample?: { rows: number[]; chunks: string[] };
  /**
   * Set once the place steps ran (place-chunks.ts): each chunk's evidence and match steps read
   * its rows' places beside it, and `chunks` holds the shards' reach chunks too.
   */
  placed?: true;
  /**
   * Messages of an earlier version: the chunk the job's model is fitted on alone (it fits on its
   * own rows, then enqueues the other chunks with `listFit`). Absent in messages of the first
   * format (each chunk fitted on its own rows).
   */
  fitChunk?: string;
  listFit?: ListFit;
  /**
   * The job's run (list-run.ts) as the split fixed it: every step matches and writes with it.
   * Absent in messages of earlier versions: then built from the job with `appended` and `threshold`.
   */
  run?: ListRun;
  /** Rows of the fit chunk's sample (absent: SAMPLE_ROWS). */
  sampleRows?: number;
  /** Voter columns appended to the result (the profile's when the job was split); also in `run`. */
  appended: AppendedField[];
  threshold: number;
  /** When the job started processing (epoch ms), for the summary's duration. */
  startedAt: number;
}

/** One notice e-mail about a job (notices/job-notices.ts and onboarding-notices.ts say which). */
export interface NoticePayload {
  v: 1;
  jobId: string;
  notice: string;
  /** Why a media-buying audience failed. */
  reason?: string;
  /** Onboarding updates carry their counts. */
  facts?: {
    counts?: { rows: number; usable: number; unknownIds: number; malformed: number; sent: number };
    approximateSize?: { lower: number; upper: number };
  };
}

/** The payload of each job type. */
export interface JobPayloads {
  [MATCH_LIST_JOB]: JobRef;
  /**
   * `step`: `place` writes the chunk's shard's part of its rows' places; `evidence` weighs the
   * chunk's part of the sample for the fit; absent: matches the chunk.
   */
  [MATCH_CHUNK_JOB]: ChunkSpec & { chunk: string; step?: 'place' | 'evidence' };
  [ASSEMBLE_LIST_JOB]: ChunkSpec;
  [ONBOARD_AUDIENCE_JOB]: JobRef;
  [CHECK_AUDIENCE_JOB]: JobRef;
  [MBP_AUDIENCE_JOB]: JobRef;
  [DELIVER_WEBHOOK_JOB]: JobRef;
  [DELIVER_FOLDER_JOB]: JobRef;
  [SEND_NOTICE_JOB]: NoticePayload;
}

export type JobType = keyof JobPayloads;

/** Each type, a single queue or a family (`<type>.<name>`); complete by construction. */
const TYPE_KINDS: Record<JobType, 'single' | 'family'> = {
  [MATCH_LIST_JOB]: 'single',
  [MATCH_CHUNK_JOB]: 'family',
  [ASSEMBLE_LIST_JOB]: 'single',
  [ONBOARD_AUDIENCE_JOB]: 'single',
  [CHECK_AUDIENCE_JOB]: 'single',
  [MBP_AUDIENCE_JOB]: 'single',
  [DELIVER_WEBHOOK_JOB]: 'single',
  [DELIVER_FOLDER_JOB]: 'single',
  [SEND_NOTICE_JOB]: 'single',
};

/** The catalogued types that are one queue each: the worker must handle every one. */
export const SINGLE_JOB_TYPES = (Object.keys(TYPE_KINDS) as JobType[]).filter(
  (type) => TYPE_KINDS[type] === 'single',
);

/** A queue message of a catalogued type (`match-chunk` goes to its shard's queue: give `shard`). */
export function jobMessage<T extends JobType>(
  type: T,
  payload: JobPayloads[T],
  options: Omit<QueueMessage, 'type' | 'payload'> & { shard?: string } = {},
): QueueMessage {
  const { shard, ...rest } = options;
  return { type: shard === undefined ? type : familyType(type, shard), payload, ...rest };
}
