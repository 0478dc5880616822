-- Per-key webhook signing secrets (Standard Webhooks, `whsec_…`). Stored as-is, not hashed: the
-- service must compute an HMAC with it on every call. Anyone who can read this database can sign
-- webhooks for the key, so the database file is as sensitive as DATA_DIR/secrets.
CREATE TABLE webhook_secrets (
  key_id TEXT PRIMARY KEY REFERENCES api_keys(id),
  secret TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  -- After a rotation the replaced secret still signs (a second signature) until previous_until,
  -- so clients can switch without missing a call.
  previous_secret TEXT,
  previous_until INTEGER
) STRICT;

-- The operator's view of a job's follow-up deliveries (webhook, notices) looks messages up by job.
CREATE INDEX queue_by_job ON queue (json_extract(payload, '$.jobId')) WHERE json_extract(payload, '$.jobId') IS NOT NULL;
