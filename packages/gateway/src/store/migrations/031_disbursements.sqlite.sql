-- Disbursements (docs/payouts.md#disbursements): merchants send money out of what the gateway owes
-- them. The ledger gains three kinds (`disbursement` at the request, `disbursement_paid` when the bank
-- pays, `disbursement_returned` when it does not) and the `transfers` account (money on its way out).
-- SQLite cannot widen a CHECK, so ledger_entries is rebuilt, its child settlement_items set aside
-- first (as migration 030 did for settlements) so that no foreign key points at it while it is
-- replaced. Its indexes and triggers are put back as migrations 015, 019 and 028 made them.
CREATE TABLE settlement_items_kept AS SELECT entry_id, settlement_id FROM settlement_items;
DROP TABLE settlement_items;

CREATE TABLE ledger_entries_rebuilt (
  -- Never reused: entries are never deleted, so the rowid only grows (no AUTOINCREMENT table to write).
  id            INTEGER PRIMARY KEY,
  at            INTEGER NOT NULL,
  kind          TEXT NOT NULL CHECK (kind IN ('payment', 'refund', 'settlement', 'payout', 'disbursement',
                                              'disbursement_paid', 'disbursement_returned')),
  cause         TEXT NOT NULL,
  merchant_id   TEXT NOT NULL,
  provider_id   TEXT,
  reference_no  TEXT,
  refund_no     TEXT,
  settlement_id TEXT,
  amount_sen    INTEGER NOT NULL CHECK (amount_sen >= 0),
  fee_sen       INTEGER NOT NULL DEFAULT 0 CHECK (fee_sen >= 0)) STRICT;
INSERT INTO ledger_entries_rebuilt (id, at, kind, cause, merchant_id, provider_id, reference_no, refund_no,
    settlement_id, amount_sen, fee_sen)
  SELECT id, at, kind, cause, merchant_id, provider_id, reference_no, refund_no, settlement_id, amount_sen, fee_sen
  FROM ledger_entries;
DROP TABLE ledger_entries;
ALTER TABLE ledger_entries_rebuilt RENAME TO ledger_entries;
CREATE INDEX ledger_entries_by_merchant ON ledger_entries (merchant_id, id);
CREATE INDEX ledger_entries_by_provider ON ledger_entries (provider_id, at) WHERE kind = 'payment';
CREATE UNIQUE INDEX ledger_entries_by_cause ON ledger_entries (cause) WHERE kind <> 'payment';
CREATE INDEX ledger_entries_refunds ON ledger_entries (reference_no) WHERE kind = 'refund';
CREATE TRIGGER ledger_entries_no_update BEFORE UPDATE ON ledger_entries
BEGIN SELECT RAISE(ABORT, 'ledger_entries is append-only'); END;
CREATE TRIGGER ledger_entries_no_delete BEFORE DELETE ON ledger_entries
BEGIN SELECT RAISE(ABORT, 'ledger_entries is append-only'); END;

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

-- Each merchant's pending balance, beside its unsettled volume, moved by the same triggers: a
-- disbursement is funded from it, and the row is what a disbursement and a settlement of the same
-- merchant both write first, so they take turns (docs/payouts.md#disbursements). Reading it costs no
-- sum over the merchant's history. What is pending today, from the ledger (a sum the bounds of
-- migration 028 keep inside 64 bits; `total()`, a float, only decides, as there).
ALTER TABLE merchant_unsettled ADD COLUMN pending_sen INTEGER NOT NULL DEFAULT 0;
INSERT INTO merchant_unsettled (merchant_id, volume_sen, pending_sen)
SELECT p.merchant_id, 0,
       CASE WHEN abs(p.approximate) > 99999999999990000 THEN 100000000000000000 * (p.approximate > 0)
            ELSE (SELECT sum(CASE e.kind WHEN 'payment' THEN e.amount_sen - e.fee_sen
                                         WHEN 'refund' THEN -e.amount_sen
                                         WHEN 'settlement' THEN -e.amount_sen ELSE 0 END)
                  FROM ledger_entries e WHERE e.merchant_id = p.merchant_id) END
FROM (SELECT e.merchant_id,
             total(CASE e.kind WHEN 'payment' THEN e.amount_sen - e.fee_sen
                               WHEN 'refund' THEN -e.amount_sen
                               WHEN 'settlement' THEN -e.amount_sen ELSE 0 END) AS approximate
      FROM ledger_entries e GROUP BY e.merchant_id) p
WHERE true
ON CONFLICT (merchant_id) DO UPDATE SET pending_sen = excluded.pending_sen;

-- Each kind's move of the pending balance: a payment adds what the merchant is owed; a refund, a
-- settlement and a disbursement (amount and fee) take from it; a returned disbursement gives back.
CREATE TRIGGER ledger_unsettled_in AFTER INSERT ON ledger_entries WHEN NEW.kind IN ('payment', 'refund')
BEGIN
  INSERT INTO merchant_unsettled (merchant_id, volume_sen, pending_sen)
    VALUES (NEW.merchant_id, NEW.amount_sen,
            CASE NEW.kind WHEN 'payment' THEN NEW.amount_sen - NEW.fee_sen ELSE -NEW.amount_sen END)
    ON CONFLICT (merchant_id) DO UPDATE SET volume_sen = volume_sen + excluded.volume_sen,
                                            pending_sen = pending_sen + excluded.pending_sen;
END;
-- A settlement's entry is posted after its sums are written (store/parts/settlements.ts).
CREATE TRIGGER ledger_unsettled_out AFTER INSERT ON ledger_entries WHEN NEW.kind = 'settlement'
BEGIN
  UPDATE merchant_unsettled
    SET volume_sen = volume_sen - (SELECT gross_sen + refunds_sen FROM settlements WHERE id = NEW.settlement_id),
        pending_sen = pending_sen - NEW.amount_sen
    WHERE merchant_id = NEW.merchant_id;
END;
CREATE TRIGGER ledger_pending_transfers AFTER INSERT ON ledger_entries
  WHEN NEW.kind IN ('disbursement', 'disbursement_returned')
BEGIN
  INSERT INTO merchant_unsettled (merchant_id, volume_sen, pending_sen)
    VALUES (NEW.merchant_id, 0, CASE NEW.kind WHEN 'disbursement' THEN -(NEW.amount_sen + NEW.fee_sen)
                                              ELSE NEW.amount_sen + NEW.fee_sen END)
    ON CONFLICT (merchant_id) DO UPDATE SET pending_sen = pending_sen + excluded.pending_sen;
END;

-- A settlement nets the disbursements before its cutoff (amounts and fees) and those returned.
ALTER TABLE settlements ADD COLUMN disbursed_sen INTEGER NOT NULL DEFAULT 0;
ALTER TABLE settlements ADD COLUMN returned_sen INTEGER NOT NULL DEFAULT 0;

-- A disbursement keeps the merchant's partnerReferenceNo (one per merchant, ever: a repeat is 409
-- 4091801), the X-EXTERNAL-ID it was asked with, and what it sent in additionalInfo, to echo; its
-- referenceNo is the gateway's.
ALTER TABLE payouts ADD COLUMN merchant_reference_no TEXT;
-- The X-EXTERNAL-ID it was asked with: a repeat while it is on its way waits for its answer.
ALTER TABLE payouts ADD COLUMN external_id TEXT;
ALTER TABLE payouts ADD COLUMN details TEXT;
CREATE UNIQUE INDEX payouts_by_merchant_reference ON payouts (merchant_id, merchant_reference_no)
  WHERE merchant_reference_no IS NOT NULL;
CREATE UNIQUE INDEX payouts_by_reference ON payouts (reference_no) WHERE reference_no IS NOT NULL;
-- The day's disbursements of a merchant, summed against its daily limit.
CREATE INDEX payouts_disbursed_by_day ON payouts (merchant_id, created_at) WHERE kind = 'disbursement';

-- A merchant's limits (JSON: {"disbursementDaily": "0.00"}); none: disbursements off.
ALTER TABLE merchants ADD COLUMN limits TEXT;
