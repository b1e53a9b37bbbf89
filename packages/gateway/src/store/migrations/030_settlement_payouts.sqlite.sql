-- Settlement payouts through the bank (docs/payouts.md#paying-a-settlement).

-- A settlement being paid out through the bank is `paying`, and names its payout; a payout that failed
-- leaves it `open` again with why. SQLite cannot widen a CHECK, so settlements is rebuilt: its
-- children (settlement_items, and the trigger of migration 028 that reads it) are set aside first,
-- so that no foreign key points at the table while it is replaced, then put back as they were.
DROP TRIGGER ledger_unsettled_out;
CREATE TABLE settlement_items_kept AS SELECT entry_id, settlement_id FROM settlement_items;
DROP TABLE settlement_items;

CREATE TABLE settlements_rebuilt (
  id                TEXT PRIMARY KEY,
  merchant_id       TEXT NOT NULL,
  cutoff            INTEGER NOT NULL,
  status            TEXT NOT NULL CHECK (status IN ('open', 'paying', 'paid')),
  count             INTEGER NOT NULL,
  gross_sen         INTEGER NOT NULL,
  fees_sen          INTEGER NOT NULL,
  refunds_sen       INTEGER NOT NULL,
  net_sen           INTEGER NOT NULL,
  created_at        INTEGER NOT NULL,
  paid_at           INTEGER,
  bank_reference    TEXT,
  slot              TEXT,
  payout_id         TEXT,
  last_payout_error TEXT
) STRICT;
INSERT INTO settlements_rebuilt (id, merchant_id, cutoff, status, count, gross_sen, fees_sen, refunds_sen, net_sen,
    created_at, paid_at, bank_reference, slot)
  SELECT id, merchant_id, cutoff, status, count, gross_sen, fees_sen, refunds_sen, net_sen,
    created_at, paid_at, bank_reference, slot FROM settlements;
DROP TABLE settlements;
ALTER TABLE settlements_rebuilt RENAME TO settlements;
CREATE INDEX settlements_by_merchant ON settlements (merchant_id, created_at);
CREATE UNIQUE INDEX settlements_one_per_slot ON settlements (merchant_id, slot) WHERE slot IS NOT NULL;

CREATE TABLE settlement_items (
  entry_id      INTEGER PRIMARY KEY REFERENCES ledger_entries (id),
  settlement_id TEXT NOT NULL REFERENCES settlements (id)
) STRICT;
INSERT INTO settlement_items (entry_id, settlement_id) SELECT entry_id, settlement_id FROM settlement_items_kept;
DROP TABLE settlement_items_kept;
CREATE INDEX settlement_items_by_settlement ON settlement_items (settlement_id);
CREATE TRIGGER settlement_items_no_update BEFORE UPDATE ON settlement_items
BEGIN SELECT RAISE(ABORT, 'settlement_items is append-only'); END;
CREATE TRIGGER settlement_items_no_delete BEFORE DELETE ON settlement_items
BEGIN SELECT RAISE(ABORT, 'settlement_items is append-only'); END;

-- As migration 028 made it.
CREATE TRIGGER ledger_unsettled_out AFTER INSERT ON ledger_entries WHEN NEW.kind = 'settlement'
BEGIN
  UPDATE merchant_unsettled
    SET volume_sen = volume_sen - (SELECT gross_sen + refunds_sen FROM settlements WHERE id = NEW.settlement_id)
    WHERE merchant_id = NEW.merchant_id;
END;

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
  amount_sen             INTEGER NOT NULL CHECK (amount_sen > 0),
  fee_sen                INTEGER NOT NULL DEFAULT 0 CHECK (fee_sen >= 0),
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
  next_check_at          INTEGER,
  checks                 INTEGER NOT NULL DEFAULT 0,
  claimed_by             TEXT,
  lease_until            INTEGER,
  created_at             INTEGER NOT NULL,
  updated_at             INTEGER NOT NULL
) STRICT;
CREATE UNIQUE INDEX payouts_one_live ON payouts (settlement_id)
  WHERE settlement_id IS NOT NULL AND state NOT IN ('failed', 'rejected');
CREATE INDEX payouts_by_merchant ON payouts (merchant_id, created_at);
CREATE INDEX payouts_due ON payouts (next_check_at) WHERE next_check_at IS NOT NULL;

-- What was asked of the bank for a payout and what it answered, as the payout bank client keeps it
-- (no secret, no signature). Append-only.
CREATE TABLE payout_exchanges (
  id        INTEGER PRIMARY KEY,
  payout_id TEXT NOT NULL REFERENCES payouts (id),
  at        INTEGER NOT NULL,
  service   TEXT NOT NULL CHECK (service IN ('15', '16', '17', '18', '36')),
  request   TEXT NOT NULL,
  status    INTEGER,
  response  TEXT,
  error     TEXT
) STRICT;
CREATE INDEX payout_exchanges_by_payout ON payout_exchanges (payout_id, id);
CREATE TRIGGER payout_exchanges_no_update BEFORE UPDATE ON payout_exchanges
BEGIN SELECT RAISE(ABORT, 'payout_exchanges is append-only'); END;
CREATE TRIGGER payout_exchanges_no_delete BEFORE DELETE ON payout_exchanges
BEGIN SELECT RAISE(ABORT, 'payout_exchanges is append-only'); END;

-- The `approve` scope: a key that may only approve or reject payouts (four eyes). Widening the CHECK
-- rebuilds admin_keys (nothing references it).
CREATE TABLE admin_keys_rebuilt (
  id                  TEXT PRIMARY KEY,
  name                TEXT NOT NULL UNIQUE,
  scope               TEXT NOT NULL CHECK (scope IN ('read', 'operate', 'admin', 'approve')),
  token_sha256        TEXT NOT NULL UNIQUE,
  created_at          INTEGER NOT NULL,
  last_used_at        INTEGER,
  revoked_at          INTEGER,
  sessions_not_before INTEGER
) STRICT;
INSERT INTO admin_keys_rebuilt (id, name, scope, token_sha256, created_at, last_used_at, revoked_at, sessions_not_before)
  SELECT id, name, scope, token_sha256, created_at, last_used_at, revoked_at, sessions_not_before FROM admin_keys;
DROP TABLE admin_keys;
ALTER TABLE admin_keys_rebuilt RENAME TO admin_keys;
