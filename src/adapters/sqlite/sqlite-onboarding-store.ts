import type { OnboardingRun, OnboardingStore } from '../../domain/ports/onboarding-store.ts';
import type { QueueMessage } from '../../domain/ports/queue.ts';
import type { SqliteQueue } from '../queue/sqlite-queue.ts';
import { ONBOARDING_COLUMNS, onboardingRunFromRow } from '../sql/metadata-rows.ts';
import { sqliteCells } from '../sql/sqlite-runner.ts';
import type { SqliteDatabase } from './sqlite-database.ts';

type Row = Record<string, unknown>;

/** Onboarding progress in the embedded database; follow-up messages commit with each change. */
export class SqliteOnboardingStore implements OnboardingStore {
  private readonly database: SqliteDatabase;
  private readonly queue: SqliteQueue;

  constructor(database: SqliteDatabase, queue: SqliteQueue) {
    this.database = database;
    this.queue = queue;
  }

  async get(jobId: string): Promise<OnboardingRun | null> {
    const row = this.database.db.prepare('SELECT * FROM onboarding_runs WHERE job_id = ?').get(jobId) as
      | Row
      | undefined;
    return row === undefined ? null : toRun(row);
  }

  async insert(run: OnboardingRun, followUps: readonly QueueMessage[] = []): Promise<void> {
    this.database.transaction(() => {
      this.database.db
        .prepare(
          `INSERT INTO onboarding_runs (job_id, stage, pattern, schema, staged_blob, counts, audience_id,
             next_batch_seq, rows_done, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          run.jobId,
          run.stage,
          run.pattern,
          JSON.stringify(run.schema),
          run.stagedBlob,
          JSON.stringify(run.counts),
          run.audienceId,
          run.nextBatchSeq,
          run.rowsDone,
          run.updatedAt,
        );
      for (const message of followUps) this.queue.enqueueNow(message);
    });
  }

  async update(
    jobId: string,
    fields: Partial<Omit<OnboardingRun, 'jobId'>>,
    followUps: readonly QueueMessage[] = [],
  ): Promise<void> {
    const sets: string[] = [];
    const values: (string | number | null)[] = [];
    for (const [field, column] of Object.entries(ONBOARDING_COLUMNS) as [
      keyof typeof ONBOARDING_COLUMNS,
      string,
    ][]) {
      if (!(field in fields)) continue;
      const value = fields[field];
      sets.push(`${column} = ?`);
      values.push(
        field === 'schema' || field === 'counts' ? JSON.stringify(value) : (value as string | number | null),
      );
    }
    this.database.transaction(() => {
      if (sets.length > 0)
        this.database.db
          .prepare(`UPDATE onboarding_runs SET ${sets.join(', ')} WHERE job_id = ?`)
          .run(...values, jobId);
      for (const message of followUps) this.queue.enqueueNow(message);
    });
  }
}

const toRun = (row: Row): OnboardingRun => onboardingRunFromRow(row, sqliteCells);
