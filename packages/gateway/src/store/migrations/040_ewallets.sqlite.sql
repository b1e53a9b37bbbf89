-- E-wallets over SNAP Direct Debit (docs/ewallets.md). A provider may be a wallet (kind `ewallet`,
-- serving one `payOption`), and a notification may carry its own callback URL: an e-wallet
-- payment's `PAY_NOTIFY`, which replaces the merchant's for that payment's callbacks.
-- SQLite cannot change a CHECK: providers is rebuilt under its own name with the columns and
-- indexes the migrations before made (nothing references it by a foreign key).
CREATE TABLE providers_kept AS SELECT * FROM providers;
DROP TABLE providers;
CREATE TABLE providers (
  id                    TEXT PRIMARY KEY,
  name                  TEXT NOT NULL,
  kind                  TEXT NOT NULL CHECK (kind IN ('bank', 'acquirer', 'ewallet')),
  bank_code             TEXT NOT NULL,
  client_key            TEXT NOT NULL UNIQUE,
  client_secret         TEXT NOT NULL,
  previous_secret       TEXT,
  previous_valid_until  INTEGER,
  secret_version        INTEGER NOT NULL DEFAULT 1,
  public_key_pem        TEXT,
  outbound              TEXT,
  is_sandbox            INTEGER NOT NULL DEFAULT 0,
  status                TEXT NOT NULL CHECK (status IN ('active', 'disabled')),
  created_at            INTEGER NOT NULL,
  updated_at            INTEGER NOT NULL,
  tokens_not_before     INTEGER,
  acquires_gateway_qris INTEGER NOT NULL DEFAULT 0 CHECK (acquires_gateway_qris IN (0, 1)),
  payouts               TEXT,
  pay_option            TEXT
) STRICT;
INSERT INTO providers (
  id, name, kind, bank_code, client_key, client_secret, previous_secret, previous_valid_until,
  secret_version, public_key_pem, outbound, is_sandbox, status, created_at, updated_at,
  tokens_not_before, acquires_gateway_qris, payouts)
SELECT
  id, name, kind, bank_code, client_key, client_secret, previous_secret, previous_valid_until,
  secret_version, public_key_pem, outbound, is_sandbox, status, created_at, updated_at,
  tokens_not_before, acquires_gateway_qris, payouts
FROM providers_kept;
DROP TABLE providers_kept;
CREATE INDEX providers_by_bank_code ON providers (kind, bank_code);
CREATE UNIQUE INDEX providers_active_bank_code ON providers (bank_code)
  WHERE kind = 'bank' AND status = 'active' AND is_sandbox = 0;
CREATE UNIQUE INDEX providers_one_gateway_qris_acquirer ON providers (acquires_gateway_qris) WHERE acquires_gateway_qris = 1;
CREATE UNIQUE INDEX providers_one_payout_bank ON providers ((payouts IS NOT NULL)) WHERE payouts IS NOT NULL;
-- One active wallet per payOption: which provider a payment goes to is never ambiguous.
CREATE UNIQUE INDEX providers_active_pay_option ON providers (pay_option)
  WHERE kind = 'ewallet' AND status = 'active';
ALTER TABLE notifications ADD COLUMN callback_url TEXT;
