-- How far a running list-matching job has got (rows_matched, bytes_read, bytes_total,
-- rows_total, at), written by the worker at most about once a second; poll answers it from
-- any api process.
ALTER TABLE jobs ADD COLUMN progress JSON;
