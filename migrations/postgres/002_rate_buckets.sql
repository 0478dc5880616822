-- Rate-limit buckets shared by every api process (src/adapters/rate-limit/pg-rate-limiter.ts):
-- one GCRA state per bucket. UNLOGGED: no WAL per request; after a crash or a failover the table
-- is empty, which only hands every client a fresh burst.
CREATE UNLOGGED TABLE rate_buckets (
  bucket TEXT COLLATE "C" PRIMARY KEY,
  -- Theoretical arrival time of the bucket's next request, epoch ms (fractional: windowMs/limit
  -- need not be whole). A bucket whose tat has passed is at rest and may be deleted.
  tat DOUBLE PRECISION NOT NULL,
  -- Whether the last consume was allowed: how the one-statement upsert reports its decision
  -- (RETURNING cannot read a row's previous values before PostgreSQL 18).
  last_allowed BOOLEAN NOT NULL
)
-- Every request rewrites its bucket's row: free space on each page keeps those updates HOT (no
-- index write). For the same reason tat has no index; the purge scans the table, which holds only
-- the recently active buckets.
WITH (fillfactor = 70);
