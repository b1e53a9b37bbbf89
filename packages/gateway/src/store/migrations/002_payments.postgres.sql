-- Amounts are SNAP money strings ("10000.00"), as in the SQLite store: exact, never a float.
-- Constraint names carry the column names the services recognise (UniqueViolation.constraint).
CREATE TABLE transactions (
  reference_no         TEXT NOT NULL CONSTRAINT transactions_reference_no_pkey PRIMARY KEY,
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
  virtual_account_no   TEXT CONSTRAINT transactions_virtual_account_no_key UNIQUE,
  bill_number          BIGINT NOT NULL,
  expires_at           BIGINT,
  paid_at              BIGINT,
  details              JSONB NOT NULL,
  created_at           BIGINT NOT NULL,
  updated_at           BIGINT NOT NULL,
  CONSTRAINT transactions_partner_reference_no_key UNIQUE (merchant_id, kind, partner_reference_no)
);
CREATE INDEX transactions_by_merchant ON transactions (merchant_id, created_at, reference_no);
CREATE INDEX transactions_by_time ON transactions (created_at, reference_no);
CREATE INDEX transactions_expiry ON transactions (expires_at) WHERE status IN ('01', '02', '03');

CREATE TABLE status_history (
  reference_no TEXT NOT NULL REFERENCES transactions (reference_no),
  seq          INTEGER NOT NULL,
  status       TEXT NOT NULL,
  status_desc  TEXT,
  reason       TEXT,
  changed_at   BIGINT NOT NULL,
  PRIMARY KEY (reference_no, seq)
);

CREATE TABLE refunds (
  refund_no         TEXT PRIMARY KEY,
  reference_no      TEXT NOT NULL REFERENCES transactions (reference_no),
  merchant_id       TEXT NOT NULL,
  partner_refund_no TEXT NOT NULL,
  amount            TEXT NOT NULL,
  reason            TEXT,
  created_at        BIGINT NOT NULL,
  CONSTRAINT refunds_partner_refund_no_key UNIQUE (merchant_id, partner_refund_no)
);

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
  next_attempt_at BIGINT,
  claimed_by      TEXT,
  lease_until     BIGINT,
  created_at      BIGINT NOT NULL,
  updated_at      BIGINT NOT NULL,
  delivered_at    BIGINT,
  last_error      TEXT
);
CREATE INDEX notifications_due ON notifications (next_attempt_at) WHERE state IN ('pending', 'retrying');
CREATE INDEX notifications_in_flight ON notifications (lease_until) WHERE state = 'delivering';
CREATE INDEX notifications_by_txn ON notifications (reference_no, txn_seq);
CREATE INDEX notifications_by_merchant ON notifications (merchant_id, created_at, id);
CREATE INDEX notifications_by_time ON notifications (created_at, id);
CREATE INDEX notifications_by_state ON notifications (state, created_at);

CREATE TABLE idempotency_keys (
  merchant_id   TEXT NOT NULL,
  day           TEXT NOT NULL,
  external_id   TEXT NOT NULL,
  request_hash  TEXT NOT NULL,
  http_status   INTEGER NOT NULL,
  response_body TEXT NOT NULL,
  created_at    BIGINT NOT NULL,
  CONSTRAINT idempotency_keys_pkey PRIMARY KEY (merchant_id, day, external_id)
);

CREATE TABLE va_prefixes (
  merchant_id        TEXT NOT NULL,
  bank_code          TEXT NOT NULL,
  partner_service_id TEXT NOT NULL CONSTRAINT va_prefixes_partner_service_id_key UNIQUE,
  next_customer_no   BIGINT NOT NULL,
  PRIMARY KEY (merchant_id, bank_code)
);
