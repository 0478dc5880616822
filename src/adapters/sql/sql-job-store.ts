import { uploadExpired } from '../../domain/client-jobs/job-failures.ts';
import type { Job, JobProgress, JobState, SmartmatchJob } from '../../domain/client-jobs/job-types.ts';
import { publicMessage } from '../../domain/errors.ts';
import type { JobStore, JobTransitionFields } from '../../domain/ports/job-store.ts';
import type { QueueMessage } from '../../domain/ports/queue.ts';
import { jobFromRow } from './metadata-rows.ts';
import type { Row, SqlRunner, SqlStatement, SqlValue } from './sql-runner.ts';

/** The columns `transition` may write, by field. */
const TRANSITION_COLUMNS: Readonly<Record<keyof JobTransitionFields, string>> = {
  error: 'error',
  summary: 'summary',
  resultBlob: 'result_blob',
  resultName: 'result_name',
  voterVersion: 'voter_version',
};

/**
 * Jobs in the metadata database. Every conditional change is one `UPDATE … WHERE state …` that
 * must change the job's row, with its follow-ups in the same write batch: when two processes race,
 * the second's UPDATE re-checks the condition against the first's committed row (PostgreSQL waits
 * for the row lock, SQLite for the write lock) and changes nothing, so it enqueues nothing either.
 */
export class SqlJobStore implements JobStore {
  private readonly sql: SqlRunner;

  constructor(sql: SqlRunner) {
    this.sql = sql;
  }

  /** Inserts a job; rejects when its key does not exist (foreign key) or its id is taken. */
  async insertJob(job: Job): Promise<void> {
    const insert = insertStatement(job);
    await this.sql.run(insert.sql, insert.params);
  }

  /**
   * The filename rule in one transaction: the key's row is locked first (an UPDATE that changes
   * nothing), so registrations of one key take turns across processes (PostgreSQL waits for the
   * row lock; SQLite holds the write lock throughout); then the awaiting jobs are replaced, then
   * a guard that no job of the filename is being matched (a fresh snapshot: it sees an upload that
   * committed meanwhile), then the insert.
   */
  async insertUnderFilename(job: SmartmatchJob, replacedError: string): Promise<boolean> {
    const lockKey = {
      sql: 'UPDATE api_keys SET name = name WHERE id = ?',
      params: [job.keyId],
      mustChangeOneRow: true,
    };
    const replaceAwaiting = {
      sql: `UPDATE jobs SET state = 'expired', error = ?, updated_at = ?
            WHERE key_id = ? AND filename = ? AND state = 'registered' AND upload_expires_at >= ?`,
      params: [replacedError, job.createdAt, job.keyId, job.filename, job.createdAt],
    };
    const noneBeingMatched = {
      sql: `UPDATE api_keys SET name = name WHERE id = ? AND NOT EXISTS (
              SELECT 1 FROM jobs WHERE key_id = ? AND filename = ? AND state IN ('uploaded', 'processing'))`,
      params: [job.keyId, job.keyId, job.filename],
      mustChangeOneRow: true,
    };
    return this.sql.write([lockKey, replaceAwaiting, noneBeingMatched, insertStatement(job)]);
  }

  /** Writes the progress of a processing job. */
  async recordProgress(id: string, progress: JobProgress): Promise<boolean> {
    // A split's record starts its chunks' count over (a split run again after a crash).
    const changed = await this.sql.run(
      `UPDATE jobs SET progress = ?, chunk_rows = COALESCE(?, chunk_rows) WHERE id = ? AND state = 'processing'`,
      [JSON.stringify(progress), progress.chunks?.shardRowsMatched ?? null, id],
    );
    return changed === 1;
  }

  async addChunkRows(id: string, rows: number): Promise<boolean> {
    const changed = await this.sql.run(
      `UPDATE jobs SET chunk_rows = chunk_rows + ? WHERE id = ? AND state = 'processing'`,
      [rows, id],
    );
    return changed === 1;
  }

  /** The job with this id, or null. */
  async getJob(id: string): Promise<Job | null> {
    const row = await this.sql.get('SELECT * FROM jobs WHERE id = ?', [id]);
    return row === null ? null : this.toJob(row);
  }

  /** The newest job of this key with this filename (ids sort by creation time, byte-wise). */
  async findLatestByFilename(keyId: string, filename: string): Promise<Job | null> {
    const row = await this.sql.get(
      'SELECT * FROM jobs WHERE key_id = ? AND filename = ? ORDER BY id DESC LIMIT 1',
      [keyId, filename],
    );
    return row === null ? null : this.toJob(row);
  }

  /** registered → uploaded within the upload window, with `followUps`, in one transaction. */
  async markUploaded(
    id: string,
    upload: { blob: string; bytes: number; at: number },
    followUps: readonly QueueMessage[],
  ): Promise<boolean> {
    const markUploaded = {
      sql: `UPDATE jobs SET state = 'uploaded', upload_blob = ?, upload_bytes = ?, updated_at = ?
            WHERE id = ? AND state = 'registered' AND upload_expires_at >= ?`,
      params: [upload.blob, upload.bytes, upload.at, id, upload.at],
      mustChangeOneRow: true,
    };
    return this.sql.write([markUploaded], followUps);
  }

  /** Moves the job to `to` only from one of `from`, writing the given fields, with `followUps`. */
  async transition(
    id: string,
    from: readonly JobState[],
    to: JobState,
    fields: JobTransitionFields,
    at: number,
    followUps: readonly QueueMessage[] = [],
  ): Promise<boolean> {
    // No state allowed: nothing can move (and `IN ()` is not SQL PostgreSQL accepts).
    if (from.length === 0) return false;
    const sets = ['state = ?', 'updated_at = ?'];
    const values: SqlValue[] = [to, at];
    for (const [field, column] of Object.entries(TRANSITION_COLUMNS) as [
      keyof JobTransitionFields,
      string,
    ][]) {
      if (!(field in fields)) continue;
      const value = fields[field];
      sets.push(`${column} = ?`);
      values.push(
        field === 'summary' && value != null ? JSON.stringify(value) : ((value as string | null) ?? null),
      );
    }
    const transition = {
      sql: `UPDATE jobs SET ${sets.join(', ')} WHERE id = ? AND state IN (${from.map(() => '?').join(', ')})`,
      params: [...values, id, ...from],
      mustChangeOneRow: true,
    };
    return this.sql.write([transition], followUps);
  }

  /** Expires registered jobs whose upload window closed before `now`; returns how many. */
  async expireUnuploaded(now: number): Promise<number> {
    return this.sql.run(
      `UPDATE jobs SET state = 'expired', updated_at = ?, error = ?
       WHERE state = 'registered' AND upload_expires_at < ?`,
      [now, publicMessage(uploadExpired()), now],
    );
  }

  /** Complete and failed jobs last changed before `before`, oldest first (then by id). */
  async listFinishedBefore(before: number, limit: number): Promise<Job[]> {
    const rows = await this.sql.all(
      `SELECT * FROM jobs WHERE state IN ('complete', 'failed') AND updated_at < ?
       ORDER BY updated_at, id LIMIT ?`,
      [before, limit],
    );
    return rows.map((row) => this.toJob(row));
  }

  /** Jobs newest first, optionally of one key and/or in one state. */
  async listJobs(filter: { keyId?: string; state?: JobState; limit: number }): Promise<Job[]> {
    const where: string[] = [];
    const values: SqlValue[] = [];
    if (filter.keyId !== undefined) {
      where.push('key_id = ?');
      values.push(filter.keyId);
    }
    if (filter.state !== undefined) {
      where.push('state = ?');
      values.push(filter.state);
    }
    const clause = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
    const rows = await this.sql.all(`SELECT * FROM jobs ${clause} ORDER BY id DESC LIMIT ?`, [
      ...values,
      filter.limit,
    ]);
    return rows.map((row) => this.toJob(row));
  }

  /** How many jobs are in each state (states without jobs are absent). */
  async countByState(): Promise<Record<string, number>> {
    const rows = await this.sql.all('SELECT state, COUNT(*) AS n FROM jobs GROUP BY state');
    return Object.fromEntries(rows.map((row) => [row['state'] as string, this.sql.cells.int(row['n'])]));
  }

  private toJob(row: Row): Job {
    return jobFromRow(row, this.sql.cells);
  }
}

/** The INSERT of a new job's row (its progress starts empty). */
function insertStatement(job: Job): SqlStatement {
  return {
    sql: `INSERT INTO jobs (id, kind, key_id, filename, state, params, upload_expires_at, upload_blob, upload_bytes,
         result_blob, result_name, error, summary, voter_version, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    params: [
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
  };
}
