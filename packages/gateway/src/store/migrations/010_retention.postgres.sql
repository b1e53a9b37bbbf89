-- Retention (SNAPGATE_RETENTION_DAYS) finds what it may prune by time without scanning tables:
-- attempts whose bodies are still kept, and idempotency keys by age.
CREATE INDEX attempts_unpruned_by_start ON notification_attempts (started_at) WHERE request_headers <> '{}'::jsonb;
CREATE INDEX idempotency_keys_by_created ON idempotency_keys (created_at);
