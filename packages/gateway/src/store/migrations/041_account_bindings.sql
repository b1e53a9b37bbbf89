-- Account binding (docs/ewallets.md#account-binding): a customer's wallet account bound to a
-- merchant, for e-wallet payments without a redirect. The customer authorises it at the wallet;
-- the merchant trades the one-time authCode for the customer's token (B2B2C), which then names the
-- binding. Codes and tokens are kept as SHA-256 hashes only.
CREATE TABLE account_bindings (
  id                       TEXT PRIMARY KEY,
  merchant_id              TEXT NOT NULL,
  partner_reference_no     TEXT NOT NULL,
  provider_id              TEXT NOT NULL,
  pay_option               TEXT NOT NULL,
  status                   TEXT NOT NULL CHECK (status IN ('pending', 'authorized', 'bound', 'declined', 'unbound')),
  redirect_url             TEXT NOT NULL,
  phone_no                 TEXT,
  consent_id               TEXT NOT NULL UNIQUE,
  auth_code_hash           TEXT UNIQUE,
  auth_code_expires_at     BIGINT,
  access_token_hash        TEXT UNIQUE,
  access_token_expires_at  BIGINT,
  refresh_token_hash       TEXT UNIQUE,
  refresh_token_expires_at BIGINT,
  created_at               BIGINT NOT NULL,
  updated_at               BIGINT NOT NULL,
  UNIQUE (merchant_id, partner_reference_no)
);
