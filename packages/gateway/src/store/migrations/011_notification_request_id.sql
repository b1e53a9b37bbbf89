-- The X-Request-Id of the request that caused a notification: sent with every attempt of it, so a
-- merchant's log and the gateway's meet on one id.
ALTER TABLE notifications ADD COLUMN request_id TEXT;
