-- Progress of an audience-onboarding job, so a job that crashed or was retried goes on from its
-- last step: the staged identifier rows, the platform's audience id, and how many rows the
-- platform has confirmed (the next upload batch). Counts only; the rows live in blob storage.
CREATE TABLE onboarding_runs (
  job_id TEXT PRIMARY KEY REFERENCES jobs(id),
  -- staged | created | uploaded | shared | awaiting_external | ready | failed (media-buying audiences)
  stage TEXT NOT NULL,
  pattern INTEGER NOT NULL,
  -- JSON array of the platform keys of each staged row's cells
  schema TEXT NOT NULL,
  staged_blob TEXT NOT NULL,
  -- JSON OnboardingCounts
  counts TEXT NOT NULL,
  audience_id TEXT,
  next_batch_seq INTEGER NOT NULL DEFAULT 1,
  rows_done INTEGER NOT NULL DEFAULT 0,
  updated_at INTEGER NOT NULL
) STRICT;
