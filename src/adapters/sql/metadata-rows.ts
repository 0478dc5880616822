import type {
  Job,
  JobProgress,
  JobState,
  JobSummary,
  OnboardingParams,
  SmartmatchParams,
} from '../../domain/client-jobs/job-types.ts';
import {
  type ApiKeyRecord,
  type ContactField,
  PROFILE_DEFAULTS,
  type Profile,
  type ProfileDelivery,
} from '../../domain/keys/key-types.ts';
import type { OnboardingCounts } from '../../domain/notices/onboarding-notices.ts';
import type { OnboardingRun, OnboardingStage } from '../../domain/ports/onboarding-store.ts';
import type { CellDecoder, Row } from './sql-runner.ts';

/*
 * Row mappers of the metadata tables, shared by both dialects: the tables have one shape in SQLite
 * and PostgreSQL (see migrations/); the runner's CellDecoder reads the cells whose driver types differ.
 */

/** The columns of onboarding_runs that `update` may set, by OnboardingRun field. */
export const ONBOARDING_COLUMNS = {
  stage: 'stage',
  pattern: 'pattern',
  schema: 'schema',
  stagedBlob: 'staged_blob',
  counts: 'counts',
  audienceId: 'audience_id',
  nextBatchSeq: 'next_batch_seq',
  rowsDone: 'rows_done',
  updatedAt: 'updated_at',
} as const satisfies Record<Exclude<keyof OnboardingRun, 'jobId'>, string>;

export function jobFromRow(row: Row, cells: CellDecoder): Job {
  const base = {
    id: row['id'] as string,
    keyId: row['key_id'] as string,
    state: row['state'] as JobState,
    uploadExpiresAt: cells.int(row['upload_expires_at']),
    uploadBlob: (row['upload_blob'] as string | null) ?? null,
    uploadBytes: cells.nullableInt(row['upload_bytes']),
    resultBlob: (row['result_blob'] as string | null) ?? null,
    resultName: (row['result_name'] as string | null) ?? null,
    error: (row['error'] as string | null) ?? null,
    summary: cells.nullableJson(row['summary']) as JobSummary | null,
    voterVersion: (row['voter_version'] as string | null) ?? null,
    createdAt: cells.int(row['created_at']),
    updatedAt: cells.int(row['updated_at']),
  };
  // Only a job the worker recorded progress of has the field (a job reads back as it was inserted).
  const progress = cells.nullableJson(row['progress'] ?? null) as JobProgress | null;
  if (progress?.chunks !== undefined) progress.chunks.shardRowsMatched = cells.int(row['chunk_rows'] ?? 0);
  if (progress !== null) Object.assign(base, { progress });
  const params = cells.json(row['params']);
  return row['kind'] === 'onboarding'
    ? { ...base, kind: 'onboarding', filename: null, params: params as OnboardingParams }
    : {
        ...base,
        kind: 'smartmatch',
        filename: row['filename'] as string,
        params: params as SmartmatchParams,
      };
}

export function keyFromRow(row: Row, cells: CellDecoder): ApiKeyRecord {
  return {
    id: row['id'] as string,
    name: row['name'] as string,
    keyHash: row['key_hash'] as string,
    displayPrefix: row['display_prefix'] as string,
    entitlements: {
      listMatching: cells.bool(row['can_list_match']),
      onboarding: cells.bool(row['can_onboard']),
      directUpload: cells.bool(row['direct_upload']),
    },
    createdAt: cells.int(row['created_at']),
    revokedAt: cells.nullableInt(row['revoked_at']),
  };
}

export function profileFromRow(row: Row, cells: CellDecoder): Profile {
  const config = cells.json(row['config']) as {
    appendedFields: Profile['appendedFields'];
    contactFields: ContactField[];
    matchThreshold?: number | null;
    maxMatchesCap?: number | null;
    webhookHosts?: string[];
    delivery?: ProfileDelivery;
  };
  return {
    keyId: row['key_id'] as string,
    profileId: row['profile_id'] as string,
    appendedFields: config.appendedFields,
    contactFields: config.contactFields,
    // Profiles saved before these settings existed get the defaults.
    matchThreshold: config.matchThreshold ?? PROFILE_DEFAULTS.matchThreshold,
    maxMatchesCap: config.maxMatchesCap ?? PROFILE_DEFAULTS.maxMatchesCap,
    webhookHosts: config.webhookHosts ?? [...PROFILE_DEFAULTS.webhookHosts],
    delivery: config.delivery ?? PROFILE_DEFAULTS.delivery,
    updatedAt: cells.int(row['updated_at']),
  };
}

export function onboardingRunFromRow(row: Row, cells: CellDecoder): OnboardingRun {
  return {
    jobId: row['job_id'] as string,
    stage: row['stage'] as OnboardingStage,
    pattern: row['pattern'] as 1 | 2,
    schema: cells.json(row['schema']) as string[],
    stagedBlob: row['staged_blob'] as string,
    counts: cells.json(row['counts']) as OnboardingCounts,
    audienceId: (row['audience_id'] as string | null) ?? null,
    nextBatchSeq: cells.int(row['next_batch_seq']),
    rowsDone: cells.int(row['rows_done']),
    updatedAt: cells.int(row['updated_at']),
  };
}
