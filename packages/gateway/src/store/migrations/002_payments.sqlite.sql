-- Amounts are SNAP money strings ("10000.00"): exact, and never a float on the way in or out.
CREATE TABLE transactions (
  reference_no         TEXT PRIMARY KEY,
  merchant_id          TEXT NOT NULL REFERENCES merchants (id),
  kind                 TEXT NOT NULL CHECK (kind IN ('qris', 'va')),
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
  UNIQUE (merchant_id, kind, partner_reference_no)
) STRICT;
CREATE INDEX transactions_by_merchant ON transactions (merchant_id, created_at, reference_no);
CREATE INDEX transactions_by_time ON transactions (created_at, reference_no);
CREATE INDEX transactions_expiry ON transactions (expires_at) WHERE status IN ('01', '02', '03');

CREATE TABLE status_history (
  reference_no TEXT NOT NULL REFERENCES transactions (reference_no),
  seq          INTEGER NOT NULL,
  status       TEXT NOT NULL,
  status_desc  TEXT,
  reason       TEXT,
  changed_at   INTEGER NOT NULL,
  PRIMARY KEY (reference_no, seq)
) STRICT;

CREATE TABLE refunds (
  refund_no         TEXT PRIMARY KEY,
  reference_no      TEXT NOT NULL REFERENCES transactions (reference_no),
  merchant_id       TEXT NOT NULL,
  partner_refund_no TEXT NOT NULL,
  amount            TEXT NOT NULL,
  reason            TEXT,
  created_at        INTEGER NOT NULL,
  UNIQUE (merchant_id, partner_refund_no)
) STRICT;

-- The outbox: a status change and its notification commit together (docs/protocol.md#callbacks).
CREATE TABLE notifications (
  id              TEXT PRIMARY KEY,
  reference_no    TEXT NOT NULL REFERENCES transactions (reference_no),
  merchant_id     TEXT NOT NULL,
  kind            TEXT NOT NULL CHECK (kind IN ('qris', 'va')),
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
  last_error      TEXT
) STRICT;
CREATE INDEX notifications_due ON notifications (next_attempt_at) WHERE state IN ('pending', 'retrying');
CREATE INDEX notifications_by_txn ON notifications (reference_no, txn_seq);
CREATE INDEX notifications_by_merchant ON notifications (merchant_id, created_at, id);
CREATE INDEX notifications_by_time ON notifications (created_at, id);

-- X-EXTERNAL-ID idempotency (docs/protocol.md#payment-calls): the key is the constraint, not a read-then-write.
CREATE TABLE idempotency_keys (
  merchant_id   TEXT NOT NULL,
  day           TEXT NOT NULL,
  external_id   TEXT NOT NULL,
  request_hash  TEXT NOT NULL,
  http_status   INTEGER NOT NULL,
  response_body TEXT NOT NULL,
  created_at    INTEGER NOT NULL,
  PRIMARY KEY (merchant_id, day, external_id)
) STRICT;

CREATE TABLE va_prefixes (
  merchant_id        TEXT NOT NULL,
  bank_code          TEXT NOT NULL,
  partner_service_id TEXT NOT NULL UNIQUE,
  next_customer_no   INTEGER NOT NULL,
  PRIMARY KEY (merchant_id, bank_code)
) STRICT;
