-- Settlement payouts through the bank (docs/payouts.md#paying-a-settlement).

-- A settlement being paid out through the bank is `paying`, and names its payout; a payout that failed
-- leaves it `open` again with why.
ALTER TABLE settlements DROP CONSTRAINT settlements_status_check;
ALTER TABLE settlements ADD CONSTRAINT settlements_status_check CHECK (status IN ('open', 'paying', 'paid'));
ALTER TABLE settlements ADD COLUMN payout_id TEXT;
ALTER TABLE settlements ADD COLUMN last_payout_error TEXT;

-- A payout: money sent through the payout bank, one transfer (partner_reference_no, from its id).
-- Its row commits in state `sending` before the bank is called, so a crash leaves it to be asked
-- about (36), never sent again. A settlement has at most one payout that has not ended in failure
-- (payouts_one_live): two instances, or a payout and a manual marking, cannot both pay it.
CREATE TABLE payouts (
  id                     TEXT PRIMARY KEY,
  kind                   TEXT NOT NULL CHECK (kind IN ('settlement', 'disbursement')),
  merchant_id            TEXT NOT NULL,
  settlement_id          TEXT REFERENCES settlements (id),
  reference_no           TEXT,
  amount_sen             BIGINT NOT NULL CHECK (amount_sen > 0),
  fee_sen                BIGINT NOT NULL DEFAULT 0 CHECK (fee_sen >= 0),
  beneficiary_bank_code  TEXT NOT NULL,
  beneficiary_account_no TEXT NOT NULL,
  beneficiary_name       TEXT NOT NULL,
  state                  TEXT NOT NULL
    CHECK (state IN ('awaiting_approval', 'sending', 'pending', 'paid', 'failed', 'rejected')),
  partner_reference_no   TEXT NOT NULL UNIQUE,
  -- The transfer as sent (service 17 or 18, its transactionDate): the status query names them.
  service                TEXT CHECK (service IN ('17', '18')),
  transaction_date       TEXT,
  requested_by           TEXT NOT NULL,
  approved_by            TEXT,
  bank_reference         TEXT,
  error                  TEXT,
  -- The next status query (36), and how many were asked; a claim (lease) keeps one instance asking.
  next_check_at          BIGINT,
  checks                 INTEGER NOT NULL DEFAULT 0,
  claimed_by             TEXT,
  lease_until            BIGINT,
  created_at             BIGINT NOT NULL,
  updated_at             BIGINT NOT NULL
);
CREATE UNIQUE INDEX payouts_one_live ON payouts (settlement_id)
  WHERE settlement_id IS NOT NULL AND state NOT IN ('failed', 'rejected');
CREATE INDEX payouts_by_merchant ON payouts (merchant_id, created_at);
CREATE INDEX payouts_due ON payouts (next_check_at) WHERE next_check_at IS NOT NULL;

-- What was asked of the bank for a payout and what it answered, as the payout bank client keeps it
-- (no secret, no signature). Append-only.
CREATE TABLE payout_exchanges (
  id        BIGSERIAL PRIMARY KEY,
  payout_id TEXT NOT NULL REFERENCES payouts (id),
  at        BIGINT NOT NULL,
  service   TEXT NOT NULL CHECK (service IN ('15', '16', '17', '18', '36')),
  request   TEXT NOT NULL,
  status    INTEGER,
  response  TEXT,
  error     TEXT
);
CREATE INDEX payout_exchanges_by_payout ON payout_exchanges (payout_id, id);
CREATE TRIGGER payout_exchanges_append_only BEFORE UPDATE OR DELETE ON payout_exchanges
  FOR EACH ROW EXECUTE FUNCTION snapgate_books_append_only();
CREATE TRIGGER payout_exchanges_no_truncate BEFORE TRUNCATE ON payout_exchanges
  FOR EACH STATEMENT EXECUTE FUNCTION snapgate_books_append_only();

-- The `approve` scope: a key that may only approve or reject payouts (four eyes).
ALTER TABLE admin_keys DROP CONSTRAINT admin_keys_scope_check;
ALTER TABLE admin_keys ADD CONSTRAINT admin_keys_scope_check CHECK (scope IN ('read', 'operate', 'admin', 'approve'));
