-- Person and voter lookups (clients.md 25-29): the rights and daily quota an operator granted a
-- key, and how many lookups (requests, persons asked for) each key made per UTC day and endpoint.
CREATE TABLE lookup_grants (
  key_id TEXT COLLATE "C" PRIMARY KEY REFERENCES api_keys(id),
  rights TEXT NOT NULL,
  daily_quota BIGINT,
  updated_at BIGINT NOT NULL
);

CREATE TABLE lookup_usage (
  key_id TEXT COLLATE "C" NOT NULL,
  day TEXT COLLATE "C" NOT NULL,
  endpoint TEXT COLLATE "C" NOT NULL,
  requests BIGINT NOT NULL,
  persons BIGINT NOT NULL,
  PRIMARY KEY (key_id, day, endpoint)
);
