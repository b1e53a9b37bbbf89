CREATE TABLE settings (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

CREATE TABLE merchants (
  id                   TEXT PRIMARY KEY,
  name                 TEXT NOT NULL,
  client_key           TEXT NOT NULL UNIQUE,
  client_secret        TEXT NOT NULL,
  previous_secret      TEXT,
  previous_valid_until INTEGER,
  secret_version       INTEGER NOT NULL DEFAULT 1,
  partner_id           TEXT NOT NULL UNIQUE,
  public_key_pem       TEXT,
  token_signature      TEXT NOT NULL CHECK (token_signature IN ('any', 'hmac-sha256', 'rsa-sha256')),
  callback_signature   TEXT NOT NULL CHECK (callback_signature IN ('hmac-sha512', 'rsa-sha256')),
  callback_base_url    TEXT,
  qris_callback_url    TEXT,
  va_callback_url      TEXT,
  merchant_name        TEXT NOT NULL,
  merchant_city        TEXT NOT NULL,
  nmid                 TEXT NOT NULL,
  mcc                  TEXT NOT NULL,
  status               TEXT NOT NULL CHECK (status IN ('active', 'disabled')),
  created_at           INTEGER NOT NULL,
  updated_at           INTEGER NOT NULL
) STRICT;
