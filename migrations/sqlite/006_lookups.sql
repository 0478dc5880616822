-- Person and voter lookups (clients.md 25-29): the rights and daily quota an operator granted a
-- key, and how many lookups (requests, persons asked for) each key made per UTC day and endpoint.
CREATE TABLE lookup_grants (
  key_id TEXT PRIMARY KEY REFERENCES api_keys(id),
  rights TEXT NOT NULL,
  daily_quota INTEGER,
  updated_at INTEGER NOT NULL
) STRICT;

CREATE TABLE lookup_usage (
  key_id TEXT NOT NULL,
  day TEXT NOT NULL,
  endpoint TEXT NOT NULL,
  requests INTEGER NOT NULL,
  persons INTEGER NOT NULL,
  PRIMARY KEY (key_id, day, endpoint)
) STRICT;
