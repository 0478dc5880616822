import type { OnboardingCounts } from '../notices/onboarding-notices.ts';
import type { QueueMessage } from './queue.ts';

export const onboardingStages = [
  'staged',
  'created',
  'uploaded',
  'shared',
  'awaiting_external',
  'ready',
  /** A media-buying audience that failed (the list-matching job it came from did not). */
  'failed',
] as const;
export type OnboardingStage = (typeof onboardingStages)[number];

/** Where an onboarding job stands (see migrations/sqlite/003_onboarding.sql). */
export interface OnboardingRun {
  jobId: string;
  stage: OnboardingStage;
  pattern: 1 | 2;
  /** Platform keys of each staged row's cells, in order. */
  schema: string[];
  /** Blob of the staged rows: one line per row, cells joined by tabs. */
  stagedBlob: string;
  counts: OnboardingCounts;
  /** The platform's id of the audience, once created. */
  audienceId: string | null;
  /** The upload session's next batch (social). */
  nextBatchSeq: number;
  /** Staged rows the platform has confirmed. */
  rowsDone: number;
  updatedAt: number;
}

/** Progress of onboarding jobs. Updates that cause work (a status e-mail) enqueue it in the same transaction. */
export interface OnboardingStore {
  get(jobId: string): Promise<OnboardingRun | null>;
  insert(run: OnboardingRun, followUps?: readonly QueueMessage[]): Promise<void>;
  update(
    jobId: string,
    fields: Partial<Omit<OnboardingRun, 'jobId'>>,
    followUps?: readonly QueueMessage[],
  ): Promise<void>;
}
