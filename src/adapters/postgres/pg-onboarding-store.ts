import type { OnboardingRun, OnboardingStore } from '../../domain/ports/onboarding-store.ts';
import type { QueueMessage } from '../../domain/ports/queue.ts';
import { ONBOARDING_COLUMNS, onboardingRunFromRow } from '../sql/metadata-rows.ts';
import { pgCells } from '../sql/pg-runner.ts';
import { type PgDatabase, type Row, runQuery } from './pg-database.ts';
import type { PgFollowUpEnqueuer } from './pg-follow-ups.ts';

/** Onboarding progress in PostgreSQL; follow-up messages commit with each change. */
export class PgOnboardingStore implements OnboardingStore {
  private readonly database: PgDatabase;
  private readonly followUps: PgFollowUpEnqueuer;

  constructor(database: PgDatabase, followUps: PgFollowUpEnqueuer) {
    this.database = database;
    this.followUps = followUps;
  }

  /** The job's onboarding progress, or null before it was staged. */
  async get(jobId: string): Promise<OnboardingRun | null> {
    const result = await this.database.query('SELECT * FROM onboarding_runs WHERE job_id = $1', [jobId]);
    const row = result.rows[0];
    return row === undefined ? null : toRun(row);
  }

  /** Inserts the run and enqueues `followUps` in one transaction; rejects a second run of a job. */
  async insert(run: OnboardingRun, followUps: readonly QueueMessage[] = []): Promise<void> {
    await this.database.transaction(async (client) => {
      await runQuery(
        client,
        `INSERT INTO onboarding_runs (job_id, stage, pattern, schema, staged_blob, counts, audience_id,
           next_batch_seq, rows_done, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [
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
        ],
      );
      if (followUps.length > 0) await this.followUps.enqueueWith(client, followUps);
    });
  }

  /**
   * Writes the given fields and enqueues `followUps` in one transaction. Like the embedded store,
   * it does not check that the run exists.
   */
  async update(
    jobId: string,
    fields: Partial<Omit<OnboardingRun, 'jobId'>>,
    followUps: readonly QueueMessage[] = [],
  ): Promise<void> {
    const sets: string[] = [];
    const values: unknown[] = [];
    for (const [field, column] of Object.entries(ONBOARDING_COLUMNS) as [
      keyof typeof ONBOARDING_COLUMNS,
      string,
    ][]) {
      if (!(field in fields)) continue;
      const value = fields[field];
      values.push(field === 'schema' || field === 'counts' ? JSON.stringify(value) : (value ?? null));
      sets.push(`${column} = $${values.length}`);
    }
    if (sets.length === 0 && followUps.length === 0) return;
    values.push(jobId);
    const sql = `UPDATE onboarding_runs SET ${sets.join(', ')} WHERE job_id = $${values.length}`;
    await this.database.transaction(async (client) => {
      if (sets.length > 0) await runQuery(client, sql, values);
      if (followUps.length > 0) await this.followUps.enqueueWith(client, followUps);
    });
  }
}

const toRun = (row: Row): OnboardingRun => onboardingRunFromRow(row, pgCells);
