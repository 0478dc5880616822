-- How far a running list-matching job has got (JSON: rows_matched, bytes_read, bytes_total,
-- rows_total, at), written by the worker at most about once a second; poll answers it.
ALTER TABLE jobs ADD COLUMN progress TEXT;
