import type { Job, JobState, JobSummary } from '../../domain/jobs/job-types.ts';
import type { JobStore } from '../../domain/ports/job-store.ts';
import type { QueueMessage } from '../../domain/ports/queue.ts';
import { jobFromRow } from '../sql/metadata-rows.ts';
import { pgCells } from '../sql/pg-runner.ts';
import { type PgDatabase, type Row, runQuery, toNumber } from './pg-database.ts';
import type { PgFollowUpEnqueuer } from './pg-follow-ups.ts';

const TRANSITION_COLUMNS = {
  error: 'error',
  summary: 'summary',
  resultBlob: 'result_blob',
  resultName: 'result_name',
  voterVersion: 'voter_version',
} as const;

/**
 * Jobs in PostgreSQL. Every conditional change is one `UPDATE … WHERE state … RETURNING`: when two
 * processes race, the second waits for the first's row lock, re-checks the condition against the
 * committed row and changes nothing. Follow-up messages are written with the same transaction's
 * client, so they commit (or roll back) with the change.
 */
export class PgJobStore implements JobStore {
  private readonly database: PgDatabase;
  private readonly followUps: PgFollowUpEnqueuer;

  constructor(database: PgDatabase, followUps: PgFollowUpEnqueuer) {
    this.database = database;
    this.followUps = followUps;
  }

  /** Inserts a job; rejects when its key does not exist (foreign key) or its id is taken. */
  async insertJob(job: Job): Promise<void> {
    await this.database.query(
      `INSERT INTO jobs (id, kind, key_id, filename, state, params, upload_expires_at, upload_blob, upload_bytes,
         result_blob, result_name, error, summary, voter_version, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
      [
        job.id,
        job.kind,
        job.keyId,
        job.filename,
        job.state,
        JSON.stringify(job.params),
        job.uploadExpiresAt,
        job.uploadBlob,
        job.uploadBytes,
        job.resultBlob,
        job.resultName,
        job.error,
        job.summary === null ? null : JSON.stringify(job.summary),
        job.voterVersion,
        job.createdAt,
        job.updatedAt,
      ],
    );
  }

  /** The job with this id, or null. */
  async getJob(id: string): Promise<Job | null> {
    const result = await this.database.query('SELECT * FROM jobs WHERE id = $1', [id]);
    const row = result.rows[0];
    return row === undefined ? null : toJob(row);
  }

  /** The newest job of this key with this filename (ids sort by creation time, byte-wise). */
  async findLatestByFilename(keyId: string, filename: string): Promise<Job | null> {
    const result = await this.database.query(
      'SELECT * FROM jobs WHERE key_id = $1 AND filename = $2 ORDER BY id DESC LIMIT 1',
      [keyId, filename],
    );
    const row = result.rows[0];
    return row === undefined ? null : toJob(row);
  }

  /** registered → uploaded within the upload window, with `followUps`, in one transaction. */
  async markUploaded(
    id: string,
    upload: { blob: string; bytes: number; at: number },
    followUps: readonly QueueMessage[],
  ): Promise<boolean> {
    return this.database.transaction(async (client) => {
      const result = await runQuery(
        client,
        `UPDATE jobs SET state = 'uploaded', upload_blob = $1, upload_bytes = $2, updated_at = $3
         WHERE id = $4 AND state = 'registered' AND upload_expires_at >= $3
         RETURNING id`,
        [upload.blob, upload.bytes, upload.at, id],
      );
      if (result.rowCount !== 1) return false;
      if (followUps.length > 0) await this.followUps.enqueueWith(client, followUps);
      return true;
    });
  }

  /** Moves the job to `to` only from one of `from`, writing the given fields, with `followUps`. */
  async transition(
    id: string,
    from: readonly JobState[],
    to: JobState,
    fields: Partial<{
      error: string | null;
      summary: JobSummary | null;
      resultBlob: string | null;
      resultName: string | null;
      voterVersion: string | null;
    }>,
    at: number,
    followUps: readonly QueueMessage[] = [],
  ): Promise<boolean> {
    const values: unknown[] = [to, at];
    const sets = ['state = $1', 'updated_at = $2'];
    for (const [field, column] of Object.entries(TRANSITION_COLUMNS) as [
      keyof typeof TRANSITION_COLUMNS,
      string,
    ][]) {
      if (!(field in fields)) continue;
      const value = fields[field];
      values.push(field === 'summary' && value != null ? JSON.stringify(value) : (value ?? null));
      sets.push(`${column} = $${values.length}`);
    }
    values.push(id, [...from]);
    const sql = `UPDATE jobs SET ${sets.join(', ')}
      WHERE id = $${values.length - 1} AND state = ANY($${values.length}::text[])
      RETURNING id`;
    return this.database.transaction(async (client) => {
      const result = await runQuery(client, sql, values);
      if (result.rowCount !== 1) return false;
      if (followUps.length > 0) await this.followUps.enqueueWith(client, followUps);
      return true;
    });
  }

  /** Expires registered jobs whose upload window closed before `now`; returns how many. */
  async expireUnuploaded(now: number): Promise<number> {
    const result = await this.database.query(
      `UPDATE jobs SET state = 'expired', updated_at = $1,
         error = 'Validation Error: no file was uploaded before the upload URL expired; register again'
       WHERE state = 'registered' AND upload_expires_at < $1`,
      [now],
    );
    return result.rowCount ?? 0;
  }

  /** Complete and failed jobs last changed before `before`, oldest first (then by id). */
  async listFinishedBefore(before: number, limit: number): Promise<Job[]> {
    const result = await this.database.query(
      `SELECT * FROM jobs WHERE state IN ('complete', 'failed') AND updated_at < $1
       ORDER BY updated_at, id LIMIT $2`,
      [before, limit],
    );
    return result.rows.map(toJob);
  }

  /** Jobs newest first, optionally of one key and/or in one state. */
  async listJobs(filter: { keyId?: string; state?: JobState; limit: number }): Promise<Job[]> {
    const where: string[] = [];
    const values: unknown[] = [];
    if (filter.keyId !== undefined) {
      values.push(filter.keyId);
      where.push(`key_id = $${values.length}`);
    }
    if (filter.state !== undefined) {
      values.push(filter.state);
      where.push(`state = $${values.length}`);
    }
    values.push(filter.limit);
    const clause = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
    const result = await this.database.query(
      `SELECT * FROM jobs ${clause} ORDER BY id DESC LIMIT $${values.length}`,
      values,
    );
    return result.rows.map(toJob);
  }

  /** How many jobs are in each state (states without jobs are absent). */
  async countByState(): Promise<Record<string, number>> {
    const result = await this.database.query('SELECT state, COUNT(*) AS n FROM jobs GROUP BY state');
    return Object.fromEntries(result.rows.map((row) => [row['state'] as string, toNumber(row['n'])]));
  }
}

const toJob = (row: Row): Job => jobFromRow(row, pgCells);
