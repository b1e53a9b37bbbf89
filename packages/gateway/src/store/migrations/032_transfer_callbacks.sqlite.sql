-- Transfer callbacks (docs/payouts.md#disbursements): a disbursement answered pending is told to its
-- merchant when it ends, through the one outbox (its signing, retries, attempt log and replay). A
-- notification then names a transfer, not a transaction: its reference_no no longer points into
-- transactions, and its kind may be `transfer`. SQLite cannot drop a foreign key or widen a CHECK,
-- so notifications is rebuilt, its child notification_attempts set aside first (as migration 030 did
-- for settlements), and both put back with their indexes as migrations 002, 003, 011 and later made them.
CREATE TABLE notification_attempts_kept AS SELECT * FROM notification_attempts;
DROP TABLE notification_attempts;

CREATE TABLE notifications_rebuilt (
  id              TEXT PRIMARY KEY,
  -- A transaction's referenceNo (kind qris, va) or a disbursement's (kind transfer).
  reference_no    TEXT NOT NULL,
  merchant_id     TEXT NOT NULL,
  kind            TEXT NOT NULL CHECK (kind IN ('qris', 'va', 'transfer')),
  txn_seq         INTEGER NOT NULL,
  latest_status   TEXT NOT NULL,
  body            TEXT NOT NULL,
  state           TEXT NOT NULL CHECK (state IN ('pending', 'delivering', 'retrying', 'delivered', 'superseded', 'dead')),
  attempt_count   INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER,
  claimed_by      TEXT,
  lease_until     INTEGER,
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL,
  delivered_at    INTEGER,
  last_error      TEXT,
  request_id      TEXT
) STRICT;
INSERT INTO notifications_rebuilt (id, reference_no, merchant_id, kind, txn_seq, latest_status, body, state,
    attempt_count, next_attempt_at, claimed_by, lease_until, created_at, updated_at, delivered_at, last_error, request_id)
  SELECT id, reference_no, merchant_id, kind, txn_seq, latest_status, body, state, attempt_count, next_attempt_at,
    claimed_by, lease_until, created_at, updated_at, delivered_at, last_error, request_id FROM notifications;
DROP TABLE notifications;
ALTER TABLE notifications_rebuilt RENAME TO notifications;
CREATE INDEX notifications_due ON notifications (next_attempt_at) WHERE state IN ('pending', 'retrying');
CREATE INDEX notifications_by_txn ON notifications (reference_no, txn_seq);
CREATE INDEX notifications_by_merchant ON notifications (merchant_id, created_at, id);
CREATE INDEX notifications_by_time ON notifications (created_at, id);
CREATE INDEX notifications_by_state ON notifications (state, created_at);

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
INSERT INTO notification_attempts SELECT * FROM notification_attempts_kept;
DROP TABLE notification_attempts_kept;
CREATE INDEX attempts_by_notification ON notification_attempts (notification_id, id);
CREATE INDEX attempts_unpruned_by_start ON notification_attempts (started_at) WHERE request_headers <> '{}';

-- Where a merchant's transfer callbacks go instead of `<callbackBaseUrl>/v1.0/transfer/notify`.
ALTER TABLE merchants ADD COLUMN transfer_callback_url TEXT;

-- Scheduled settlements of `auto` merchants no payout was asked for (the payout job pays those whose
-- instance stopped between making and paying them): found without reading every settlement.
CREATE INDEX settlements_unpaid_scheduled ON settlements (created_at)
  WHERE status = 'open' AND slot IS NOT NULL AND payout_id IS NULL AND last_payout_error IS NULL;
