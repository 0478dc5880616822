import type { Job, JobState, JobSummary } from '../../domain/jobs/job-types.ts';
import type { JobStore } from '../../domain/ports/job-store.ts';
import type { QueueMessage } from '../../domain/ports/queue.ts';
import type { SqliteQueue } from '../queue/sqlite-queue.ts';
import { jobFromRow } from '../sql/metadata-rows.ts';
import { sqliteCells } from '../sql/sqlite-runner.ts';
import type { SqliteDatabase } from './sqlite-database.ts';

type Row = Record<string, unknown>;

/** Jobs in the embedded SQLite database; uploads enqueue their follow-up in the same transaction. */
export class SqliteJobStore implements JobStore {
  private readonly database: SqliteDatabase;
  private readonly queue: SqliteQueue;
  private readonly latestByFilename;
  private readonly byId;

  constructor(database: SqliteDatabase, queue: SqliteQueue) {
    this.database = database;
    this.queue = queue;
    this.latestByFilename = database.db.prepare(
      'SELECT * FROM jobs WHERE key_id = ? AND filename = ? ORDER BY id DESC LIMIT 1',
    );
    this.byId = database.db.prepare('SELECT * FROM jobs WHERE id = ?');
  }

  async insertJob(job: Job): Promise<void> {
    this.database.db
      .prepare(
        `INSERT INTO jobs (id, kind, key_id, filename, state, params, upload_expires_at, upload_blob, upload_bytes,
           result_blob, result_name, error, summary, voter_version, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
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
      );
  }

  async getJob(id: string): Promise<Job | null> {
    const row = this.byId.get(id) as Row | undefined;
    return row ? toJob(row) : null;
  }

  async findLatestByFilename(keyId: string, filename: string): Promise<Job | null> {
    // Ids sort by creation time, so the highest id is the newest registration.
    const row = this.latestByFilename.get(keyId, filename) as Row | undefined;
    return row ? toJob(row) : null;
  }

  async markUploaded(
    id: string,
    upload: { blob: string; bytes: number; at: number },
    followUps: readonly QueueMessage[],
  ): Promise<boolean> {
    return this.database.transaction(() => {
      const result = this.database.db
        .prepare(
          `UPDATE jobs SET state = 'uploaded', upload_blob = ?, upload_bytes = ?, updated_at = ?
           WHERE id = ? AND state = 'registered' AND upload_expires_at >= ?`,
        )
        .run(upload.blob, upload.bytes, upload.at, id, upload.at);
      if (result.changes !== 1) return false;
      for (const followUp of followUps) this.queue.enqueueNow(followUp);
      return true;
    });
  }

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
    const sets = ['state = ?', 'updated_at = ?'];
    const values: (string | number | null)[] = [to, at];
    const columns = {
      error: 'error',
      summary: 'summary',
      resultBlob: 'result_blob',
      resultName: 'result_name',
      voterVersion: 'voter_version',
    } as const;
    for (const [field, column] of Object.entries(columns) as [keyof typeof columns, string][]) {
      if (!(field in fields)) continue;
      const value = fields[field];
      sets.push(`${column} = ?`);
      values.push(field === 'summary' && value != null ? JSON.stringify(value) : (value as string | null));
    }
    const placeholders = from.map(() => '?').join(', ');
    return this.database.transaction(() => {
      const result = this.database.db
        .prepare(`UPDATE jobs SET ${sets.join(', ')} WHERE id = ? AND state IN (${placeholders})`)
        .run(...values, id, ...from);
      if (result.changes !== 1) return false;
      for (const message of followUps) this.queue.enqueueNow(message);
      return true;
    });
  }

  async expireUnuploaded(now: number): Promise<number> {
    return Number(
      this.database.db
        .prepare(
          `UPDATE jobs SET state = 'expired', updated_at = ?,
             error = 'Validation Error: no file was uploaded before the upload URL expired; register again'
           WHERE state = 'registered' AND upload_expires_at < ?`,
        )
        .run(now, now).changes,
    );
  }

  async listFinishedBefore(before: number, limit: number): Promise<Job[]> {
    return (
      this.database.db
        .prepare(
          `SELECT * FROM jobs WHERE state IN ('complete', 'failed') AND updated_at < ?
           ORDER BY updated_at LIMIT ?`,
        )
        .all(before, limit) as Row[]
    ).map(toJob);
  }

  async listJobs(filter: { keyId?: string; state?: JobState; limit: number }): Promise<Job[]> {
    const where: string[] = [];
    const values: (string | number)[] = [];
    if (filter.keyId !== undefined) {
      where.push('key_id = ?');
      values.push(filter.keyId);
    }
    if (filter.state !== undefined) {
      where.push('state = ?');
      values.push(filter.state);
    }
    const clause = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
    return (
      this.database.db
        .prepare(`SELECT * FROM jobs ${clause} ORDER BY id DESC LIMIT ?`)
        .all(...values, filter.limit) as Row[]
    ).map(toJob);
  }

  async countByState(): Promise<Record<string, number>> {
    const rows = this.database.db
      .prepare('SELECT state, COUNT(*) AS n FROM jobs GROUP BY state')
      .all() as Row[];
    return Object.fromEntries(rows.map((r) => [r['state'] as string, r['n'] as number]));
  }
}

const toJob = (row: Row): Job => jobFromRow(row, sqliteCells);
