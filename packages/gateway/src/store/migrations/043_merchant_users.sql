-- Merchant users (docs/merchant-users.md): a merchant's people, who sign in to its dashboard with
-- an email, a password (a scrypt record) and, when on, a TOTP code. The invitation token is kept
-- as its SHA-256; the TOTP secret is sealed under the master key as every secret read back.
CREATE TABLE merchant_users (
  id                    TEXT PRIMARY KEY,
  merchant_id           TEXT NOT NULL,
  email                 TEXT NOT NULL UNIQUE,
  role                  TEXT NOT NULL CHECK (role IN ('owner', 'finance', 'developer', 'viewer')),
  status                TEXT NOT NULL CHECK (status IN ('invited', 'active', 'disabled')),
  password_hash         TEXT,
  invitation_hash       TEXT UNIQUE,
  invitation_expires_at BIGINT,
  totp_secret           TEXT,
  totp_enabled_at       BIGINT,
  totp_last_step        BIGINT,
  failed_sign_ins       INTEGER NOT NULL DEFAULT 0,
  failures_since        BIGINT,
  locked_until          BIGINT,
  sessions_not_before   BIGINT,
  last_sign_in_at       BIGINT,
  created_at            BIGINT NOT NULL,
  updated_at            BIGINT NOT NULL
);
CREATE INDEX merchant_users_by_merchant ON merchant_users (merchant_id, created_at);
