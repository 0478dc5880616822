-- Keys, profiles, jobs, webhook secrets and onboarding progress of the scaled-out backend: the
-- PostgreSQL twin of migrations/sqlite/001-003 (the job queue is not here: the queue library owns
-- its own tables). Column semantics match the embedded schema:
-- * times are epoch milliseconds in BIGINT (node-postgres returns BIGINT as a string: the stores
--   parse it);
-- * JSON is stored as `json`, which keeps the text as written (key order included) and accepts
--   every string JSON.stringify writes, as the embedded TEXT columns do (`jsonb` reorders keys and
--   refuses \u0000);
-- * identifiers, names and file names are COLLATE "C": they sort and compare by bytes as in
--   SQLite, whatever the database's default collation (ids sort by creation time only byte-wise).

CREATE TABLE api_keys (
  id TEXT COLLATE "C" PRIMARY KEY,
  name TEXT COLLATE "C" NOT NULL,
  key_hash TEXT COLLATE "C" NOT NULL UNIQUE,
  display_prefix TEXT NOT NULL,
  can_list_match BOOLEAN NOT NULL,
  can_onboard BOOLEAN NOT NULL,
  direct_upload BOOLEAN NOT NULL,
  created_at BIGINT NOT NULL,
  revoked_at BIGINT
);
-- findKey looks keys up by display name as well as by id.
CREATE INDEX api_keys_by_name ON api_keys (name);

CREATE TABLE profiles (
  key_id TEXT COLLATE "C" NOT NULL REFERENCES api_keys (id),
  profile_id TEXT COLLATE "C" NOT NULL,
  config JSON NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (key_id, profile_id)
);

CREATE TABLE jobs (
  id TEXT COLLATE "C" PRIMARY KEY,
  kind TEXT NOT NULL,
  key_id TEXT COLLATE "C" NOT NULL REFERENCES api_keys (id),
  filename TEXT COLLATE "C",
  state TEXT NOT NULL,
  params JSON NOT NULL,
  upload_expires_at BIGINT NOT NULL,
  upload_blob TEXT,
  -- Uploads may exceed 2 GiB.
  upload_bytes BIGINT,
  result_blob TEXT,
  result_name TEXT,
  error TEXT,
  summary JSON,
  voter_version TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX jobs_by_filename ON jobs (key_id, filename, id);
CREATE INDEX jobs_by_state ON jobs (state, upload_expires_at);
-- listJobs by key, newest first.
CREATE INDEX jobs_by_key ON jobs (key_id, id);
-- listFinishedBefore: finished jobs whose retention is due, oldest first.
CREATE INDEX jobs_finished ON jobs (updated_at) WHERE state IN ('complete', 'failed');

-- Per-key webhook signing secrets (Standard Webhooks, `whsec_…`). Stored as-is, not hashed: the
-- service must compute an HMAC with it on every call. Anyone who can read this table can sign
-- webhooks for the key: grant it as narrowly as DATA_DIR/secrets.
CREATE TABLE webhook_secrets (
  key_id TEXT COLLATE "C" PRIMARY KEY REFERENCES api_keys (id),
  secret TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  -- After a rotation the replaced secret still signs (a second signature) until previous_until,
  -- so clients can switch without missing a call.
  previous_secret TEXT,
  previous_until BIGINT
);

-- Progress of an audience-onboarding job, so a job that crashed or was retried goes on from its
-- last step. Counts only; the staged rows live in blob storage.
CREATE TABLE onboarding_runs (
  job_id TEXT COLLATE "C" PRIMARY KEY REFERENCES jobs (id),
  -- staged | created | uploaded | shared | awaiting_external | ready | failed (media-buying audiences)
  stage TEXT NOT NULL,
  pattern INTEGER NOT NULL,
  -- JSON array of the platform keys of each staged row's cells
  schema JSON NOT NULL,
  staged_blob TEXT NOT NULL,
  -- JSON OnboardingCounts
  counts JSON NOT NULL,
  audience_id TEXT,
  next_batch_seq INTEGER NOT NULL DEFAULT 1,
  rows_done BIGINT NOT NULL DEFAULT 0,
  updated_at BIGINT NOT NULL
);
