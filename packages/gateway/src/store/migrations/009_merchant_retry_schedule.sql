-- A merchant's own callback retry schedule (e.g. "0s,5s,30s"); NULL: the gateway's.
ALTER TABLE merchants ADD COLUMN retry_schedule TEXT;
