-- Rows matched so far by the chunks of a list split over a sharded voter file (a row matched in
-- three shards counts three times), added to by each chunk as it goes: poll reads the job's
-- progress from it and the split's count of its rows per shard.
ALTER TABLE jobs ADD COLUMN chunk_rows INTEGER NOT NULL DEFAULT 0;
