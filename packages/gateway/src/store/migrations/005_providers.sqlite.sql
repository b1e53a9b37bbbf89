-- Upstream providers: banks that own VA ranges and QRIS acquirers, calling snapgate over SNAP.
ALTER TABLE merchants ADD COLUMN qris_provider TEXT;

CREATE TABLE providers (
  id                   TEXT PRIMARY KEY,
  name                 TEXT NOT NULL,
  kind                 TEXT NOT NULL CHECK (kind IN ('bank', 'acquirer')),
  bank_code            TEXT NOT NULL,
  client_key           TEXT NOT NULL UNIQUE,
  client_secret        TEXT NOT NULL,
  previous_secret      TEXT,
  previous_valid_until INTEGER,
  secret_version       INTEGER NOT NULL DEFAULT 1,
  public_key_pem       TEXT,
  outbound             TEXT,
  is_sandbox           INTEGER NOT NULL DEFAULT 0,
  status               TEXT NOT NULL CHECK (status IN ('active', 'disabled')),
  created_at           INTEGER NOT NULL,
  updated_at           INTEGER NOT NULL
) STRICT;
CREATE INDEX providers_by_bank_code ON providers (kind, bank_code);
-- One active bank per bankCode: a VA's owner is never ambiguous, even under concurrent writes.
CREATE UNIQUE INDEX providers_active_bank_code ON providers (bank_code)
  WHERE kind = 'bank' AND status = 'active' AND is_sandbox = 0;

-- Every call a provider made, as answered.
CREATE TABLE provider_inbound (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  provider_id   TEXT NOT NULL,
  at            INTEGER NOT NULL,
  method        TEXT NOT NULL,
  path          TEXT NOT NULL,
  request_body  TEXT NOT NULL,
  http_status   INTEGER NOT NULL,
  response_code TEXT,
  response_body TEXT NOT NULL,
  duration_ms   INTEGER NOT NULL
) STRICT;
CREATE INDEX provider_inbound_by_provider ON provider_inbound (provider_id, id);

-- A bank's payment flag, idempotent on (provider, paymentRequestId): a repeat answers this answer.
CREATE TABLE va_payments (
  provider_id        TEXT NOT NULL,
  payment_request_id TEXT NOT NULL,
  reference_no       TEXT NOT NULL REFERENCES transactions (reference_no),
  http_status        INTEGER NOT NULL,
  response_body      TEXT NOT NULL,
  created_at         INTEGER NOT NULL,
  PRIMARY KEY (provider_id, payment_request_id)
) STRICT;
