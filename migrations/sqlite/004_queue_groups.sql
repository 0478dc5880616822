-- Fairness groups (the client's key id): a runnable message whose group has nothing of its type
-- running is claimed before one whose group has.
ALTER TABLE queue ADD COLUMN group_key TEXT;
CREATE INDEX queue_running_groups ON queue (type, group_key) WHERE state = 'running' AND group_key IS NOT NULL;
