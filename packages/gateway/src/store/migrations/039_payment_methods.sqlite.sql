-- A payment method is one module (src/methods/): which methods exist is the code's to say, not a
-- CHECK that lists two. SQLite cannot drop a CHECK, so transactions and notifications are rebuilt
-- without the one on `kind`, each under its own name (its children's foreign keys point at the
-- name: they are checked at the commit, once the rows are back) and with the indexes and trigger
-- the migrations before made. The search trigger is put back after the copy, so no row is queued
-- for the search index again. A kind read back that the code does not know is refused there.
PRAGMA defer_foreign_keys = ON;
CREATE TABLE transactions_kept AS SELECT * FROM transactions;
DROP TABLE transactions;
CREATE TABLE transactions (
  reference_no         TEXT PRIMARY KEY,
  merchant_id          TEXT NOT NULL REFERENCES merchants (id),
  kind                 TEXT NOT NULL,
  partner_reference_no TEXT NOT NULL,
  status               TEXT NOT NULL CHECK (status IN ('00', '01', '02', '03', '04', '05', '06')),
  status_desc          TEXT,
  seq                  INTEGER NOT NULL,
  amount               TEXT,
  currency             TEXT NOT NULL,
  paid_amount          TEXT,
  refunded_amount      TEXT NOT NULL DEFAULT '0.00',
  fee_amount           TEXT NOT NULL DEFAULT '0.00',
  virtual_account_no   TEXT UNIQUE,
  bill_number          INTEGER NOT NULL,
  expires_at           INTEGER,
  paid_at              INTEGER,
  details              TEXT NOT NULL,
  created_at           INTEGER NOT NULL,
  updated_at           INTEGER NOT NULL,
  payment_entry_id     INTEGER,
  checkout_id          TEXT,
  UNIQUE (merchant_id, kind, partner_reference_no)
) STRICT;
INSERT INTO transactions (
  reference_no, merchant_id, kind, partner_reference_no, status, status_desc, seq, amount,
  currency, paid_amount, refunded_amount, fee_amount, virtual_account_no, bill_number, expires_at,
  paid_at, details, created_at, updated_at, payment_entry_id, checkout_id)
SELECT
  reference_no, merchant_id, kind, partner_reference_no, status, status_desc, seq, amount,
  currency, paid_amount, refunded_amount, fee_amount, virtual_account_no, bill_number, expires_at,
  paid_at, details, created_at, updated_at, payment_entry_id, checkout_id
FROM transactions_kept;
DROP TABLE transactions_kept;
CREATE INDEX transactions_by_merchant ON transactions (merchant_id, created_at, reference_no);
CREATE INDEX transactions_by_time ON transactions (created_at, reference_no);
CREATE INDEX transactions_expiry ON transactions (expires_at) WHERE status IN ('01', '02', '03');
CREATE UNIQUE INDEX transactions_checkout_id ON transactions (checkout_id) WHERE checkout_id IS NOT NULL;
CREATE INDEX transactions_by_paid_at ON transactions (paid_at, reference_no) WHERE paid_at IS NOT NULL;
CREATE TRIGGER transactions_search_queued AFTER INSERT ON transactions BEGIN
  INSERT INTO transactions_search_queue (reference_no) VALUES (new.reference_no);
END;

CREATE TABLE notifications_kept AS SELECT * FROM notifications;
DROP TABLE notifications;
CREATE TABLE notifications (
  id              TEXT PRIMARY KEY,
  reference_no    TEXT NOT NULL,
  merchant_id     TEXT NOT NULL,
  kind            TEXT NOT NULL,
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
INSERT INTO notifications (
  id, reference_no, merchant_id, kind, txn_seq, latest_status, body, state, attempt_count,
  next_attempt_at, claimed_by, lease_until, created_at, updated_at, delivered_at, last_error,
  request_id)
SELECT
  id, reference_no, merchant_id, kind, txn_seq, latest_status, body, state, attempt_count,
  next_attempt_at, claimed_by, lease_until, created_at, updated_at, delivered_at, last_error,
  request_id
FROM notifications_kept;
DROP TABLE notifications_kept;
CREATE INDEX notifications_due ON notifications (next_attempt_at) WHERE state IN ('pending', 'retrying');
CREATE INDEX notifications_by_txn ON notifications (reference_no, txn_seq);
CREATE INDEX notifications_by_merchant ON notifications (merchant_id, created_at, id);
CREATE INDEX notifications_by_time ON notifications (created_at, id);
CREATE INDEX notifications_by_state ON notifications (state, created_at);
