-- Money out, its first part (docs/payouts.md): the payout bank and merchants' verified bank accounts.
-- A bank provider may be the payout bank (payouts: JSON {"sourceAccountNo"}): snapgate calls it as a
-- SNAP client for account inquiries and transfers. At most one provider is.
ALTER TABLE providers ADD COLUMN payouts TEXT;
CREATE UNIQUE INDEX providers_one_payout_bank ON providers ((payouts IS NOT NULL)) WHERE payouts IS NOT NULL;

-- A merchant's bank account as given, with the name its bank answered when it was verified (JSON),
-- and whether its settlements are paid out by hand or as soon as they are made.
ALTER TABLE merchants ADD COLUMN payout_account TEXT;
ALTER TABLE merchants ADD COLUMN payout_schedule TEXT NOT NULL DEFAULT 'manual' CHECK (payout_schedule IN ('manual', 'auto'));

-- The built-in sandbox bank's transfers (sandbox mode): one per partnerReferenceNo, whose first answer
-- a repeat gets again; a pending one ends (status, from outcome) at the next status query.
CREATE TABLE sandbox_bank_transfers (
  partner_reference_no   TEXT PRIMARY KEY,
  reference_no           TEXT NOT NULL UNIQUE,
  service_code           TEXT NOT NULL CHECK (service_code IN ('17', '18')),
  beneficiary_bank_code  TEXT NOT NULL,
  beneficiary_account_no TEXT NOT NULL,
  amount                 TEXT NOT NULL,
  status                 TEXT NOT NULL CHECK (status IN ('00', '03', '06')),
  outcome                TEXT NOT NULL CHECK (outcome IN ('00', '06')),
  http_status            INTEGER NOT NULL,
  response_body          TEXT NOT NULL,
  created_at             BIGINT NOT NULL,
  updated_at             BIGINT NOT NULL
);
