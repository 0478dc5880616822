import type { OnboardingRun, OnboardingStore } from '../../domain/ports/onboarding-store.ts';
import type { QueueMessage } from '../../domain/ports/queue.ts';
import { ONBOARDING_COLUMNS, onboardingRunFromRow } from './metadata-rows.ts';
import type { SqlRunner, SqlStatement, SqlValue } from './sql-runner.ts';

/** Onboarding progress in the metadata database; follow-up messages commit with each change. */
export class SqlOnboardingStore implements OnboardingStore {
  private readonly sql: SqlRunner;

  constructor(sql: SqlRunner) {
    this.sql = sql;
  }

  /** The job's onboarding progress, or null before it was staged. */
  async get(jobId: string): Promise<OnboardingRun | null> {
    const row = await this.sql.get('SELECT * FROM onboarding_runs WHERE job_id = ?', [jobId]);
    return row === null ? null : onboardingRunFromRow(row, this.sql.cells);
  }

  /** Inserts the run and enqueues `followUps` in one transaction; rejects a second run of a job. */
  async insert(run: OnboardingRun, followUps: readonly QueueMessage[] = []): Promise<void> {
    const insert = {
      sql: `INSERT INTO onboarding_runs (job_id, stage, pattern, schema, staged_blob, counts, audience_id,
              next_batch_seq, rows_done, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      params: [
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
    };
    await this.sql.write([insert], followUps);
  }

  /**
   * Writes the given fields and enqueues `followUps` in one transaction. It does not check that
   * the run exists: the follow-ups are enqueued either way.
   */
  async update(
    jobId: string,
    fields: Partial<Omit<OnboardingRun, 'jobId'>>,
    followUps: readonly QueueMessage[] = [],
  ): Promise<void> {
    const sets: string[] = [];
    const values: SqlValue[] = [];
    for (const [field, column] of Object.entries(ONBOARDING_COLUMNS) as [
      keyof typeof ONBOARDING_COLUMNS,
      string,
    ][]) {
      if (!(field in fields)) continue;
      const value = fields[field];
      sets.push(`${column} = ?`);
      values.push(
        field === 'schema' || field === 'counts'
          ? JSON.stringify(value)
          : ((value as string | number | null) ?? null),
      );
    }
    if (sets.length === 0 && followUps.length === 0) return;
    const statements: SqlStatement[] =
      sets.length === 0
        ? []
        : [
            {
              sql: `UPDATE onboarding_runs SET ${sets.join(', ')} WHERE job_id = ?`,
              params: [...values, jobId],
            },
          ];
    await this.sql.write(statements, followUps);
  }
}
