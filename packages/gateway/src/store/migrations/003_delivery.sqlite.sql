-- Every callback attempt, for operators and merchants asking what happened (docs/protocol.md#callbacks).
CREATE TABLE notification_attempts (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  notification_id TEXT NOT NULL REFERENCES notifications (id),
  attempt_no      INTEGER NOT NULL,
  worker_id       TEXT NOT NULL,
  started_at      INTEGER NOT NULL,
  url             TEXT,
  request_headers TEXT NOT NULL,
  response_status INTEGER,
  response_body   TEXT,
  duration_ms     INTEGER NOT NULL,
  outcome         TEXT NOT NULL CHECK (outcome IN ('acknowledged', 'rejected', 'error')),
  error           TEXT
) STRICT;
CREATE INDEX attempts_by_notification ON notification_attempts (notification_id, id);
CREATE INDEX notifications_by_state ON notifications (state, created_at);
