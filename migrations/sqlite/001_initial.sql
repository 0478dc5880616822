-- Keys, profiles, jobs and the job queue of the embedded backend. Times are epoch milliseconds.
CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  key_hash TEXT NOT NULL UNIQUE,
  display_prefix TEXT NOT NULL,
  can_list_match INTEGER NOT NULL,
  can_onboard INTEGER NOT NULL,
  direct_upload INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
) STRICT;

CREATE TABLE profiles (
  key_id TEXT NOT NULL REFERENCES api_keys(id),
  profile_id TEXT NOT NULL,
  config TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (key_id, profile_id)
) STRICT;

CREATE TABLE jobs (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  key_id TEXT NOT NULL REFERENCES api_keys(id),
  filename TEXT,
  state TEXT NOT NULL,
  params TEXT NOT NULL,
  upload_expires_at INTEGER NOT NULL,
  upload_blob TEXT,
  upload_bytes INTEGER,
  result_blob TEXT,
  result_name TEXT,
  error TEXT,
  summary TEXT,
  voter_version TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX jobs_by_filename ON jobs (key_id, filename, id);
CREATE INDEX jobs_by_state ON jobs (state, upload_expires_at);

CREATE TABLE queue (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  type TEXT NOT NULL,
  payload TEXT NOT NULL,
  state TEXT NOT NULL, -- ready | running | done | dead
  run_at INTEGER NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  max_attempts INTEGER NOT NULL,
  lease_owner TEXT,
  lease_until INTEGER,
  last_error TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX queue_runnable ON queue (state, run_at, id);
