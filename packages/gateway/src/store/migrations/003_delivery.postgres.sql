CREATE TABLE notification_attempts (
  id              BIGSERIAL PRIMARY KEY,
  notification_id TEXT NOT NULL REFERENCES notifications (id),
  attempt_no      INTEGER NOT NULL,
  worker_id       TEXT NOT NULL,
  started_at      BIGINT NOT NULL,
  url             TEXT,
  request_headers JSONB NOT NULL,
  response_status INTEGER,
  response_body   TEXT,
  duration_ms     INTEGER NOT NULL,
  outcome         TEXT NOT NULL CHECK (outcome IN ('acknowledged', 'rejected', 'error')),
  error           TEXT
);
CREATE INDEX attempts_by_notification ON notification_attempts (notification_id, id);
