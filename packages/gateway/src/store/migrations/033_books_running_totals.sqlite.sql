-- The books at scale (docs/adr/0014-running-totals-and-the-unsettled-queue.md): a merchant's balance
-- and a settlement run cost what is new, not the gateway's age.
--
-- 1. Running totals. Each merchant's row of merchant_unsettled (migrations 028, 031) also keeps
--    what is settling, what was paid out and the fees kept, moved by the ledger's own inserts as its
--    pending balance is: the balance is one row, read at once. Filled from the ledger here, once.
ALTER TABLE merchant_unsettled ADD COLUMN settling_sen INTEGER NOT NULL DEFAULT 0;
ALTER TABLE merchant_unsettled ADD COLUMN paid_out_sen INTEGER NOT NULL DEFAULT 0;
ALTER TABLE merchant_unsettled ADD COLUMN fees_sen INTEGER NOT NULL DEFAULT 0;
-- (`total()`, a float, only decides; `sum()`, exact, runs only where it cannot overflow: a database
-- written before migration 028's bounds may hold more, and keeps the bound there.)
INSERT INTO merchant_unsettled (merchant_id, volume_sen, pending_sen, settling_sen, paid_out_sen, fees_sen)
SELECT t.merchant_id, 0, 0,
       CASE WHEN t.settling > 99999999999990000 THEN 100000000000000000
            ELSE (SELECT sum(CASE e.kind WHEN 'settlement' THEN e.amount_sen WHEN 'payout' THEN -e.amount_sen ELSE 0 END)
                  FROM ledger_entries e WHERE e.merchant_id = t.merchant_id) END,
       CASE WHEN t.paid_out > 99999999999990000 THEN 100000000000000000
            ELSE (SELECT sum(CASE e.kind WHEN 'payout' THEN e.amount_sen ELSE 0 END)
                  FROM ledger_entries e WHERE e.merchant_id = t.merchant_id) END,
       CASE WHEN t.fees > 99999999999990000 THEN 100000000000000000
            ELSE (SELECT sum(CASE e.kind WHEN 'payment' THEN e.fee_sen WHEN 'disbursement' THEN e.fee_sen
                                         WHEN 'disbursement_returned' THEN -e.fee_sen ELSE 0 END)
                  FROM ledger_entries e WHERE e.merchant_id = t.merchant_id) END
FROM (SELECT e.merchant_id,
             total(CASE e.kind WHEN 'settlement' THEN e.amount_sen WHEN 'payout' THEN -e.amount_sen ELSE 0 END) AS settling,
             total(CASE e.kind WHEN 'payout' THEN e.amount_sen ELSE 0 END) AS paid_out,
             total(CASE e.kind WHEN 'payment' THEN e.fee_sen WHEN 'disbursement' THEN e.fee_sen
                               WHEN 'disbursement_returned' THEN -e.fee_sen ELSE 0 END) AS fees
      FROM ledger_entries e GROUP BY e.merchant_id) t
WHERE true
ON CONFLICT (merchant_id) DO UPDATE SET settling_sen = excluded.settling_sen, paid_out_sen = excluded.paid_out_sen,
  fees_sen = excluded.fees_sen;

-- Each kind's move of the totals, in one trigger per kind (as before, and the rest with them).
DROP TRIGGER ledger_unsettled_in;
DROP TRIGGER ledger_unsettled_out;
DROP TRIGGER ledger_pending_transfers;
CREATE TRIGGER ledger_unsettled_in AFTER INSERT ON ledger_entries WHEN NEW.kind IN ('payment', 'refund')
BEGIN
  INSERT INTO merchant_unsettled (merchant_id, volume_sen, pending_sen, fees_sen)
    VALUES (NEW.merchant_id, NEW.amount_sen,
            CASE NEW.kind WHEN 'payment' THEN NEW.amount_sen - NEW.fee_sen ELSE -NEW.amount_sen END,
            CASE NEW.kind WHEN 'payment' THEN NEW.fee_sen ELSE 0 END)
    ON CONFLICT (merchant_id) DO UPDATE SET volume_sen = volume_sen + excluded.volume_sen,
                                            pending_sen = pending_sen + excluded.pending_sen,
                                            fees_sen = fees_sen + excluded.fees_sen;
END;
-- A settlement's entry is posted after its sums are written (store/parts/settlements.ts).
CREATE TRIGGER ledger_unsettled_out AFTER INSERT ON ledger_entries WHEN NEW.kind = 'settlement'
BEGIN
  UPDATE merchant_unsettled
    SET volume_sen = volume_sen - (SELECT gross_sen + refunds_sen FROM settlements WHERE id = NEW.settlement_id),
        pending_sen = pending_sen - NEW.amount_sen,
        settling_sen = settling_sen + NEW.amount_sen
    WHERE merchant_id = NEW.merchant_id;
END;
CREATE TRIGGER ledger_paid_out AFTER INSERT ON ledger_entries WHEN NEW.kind = 'payout'
BEGIN
  UPDATE merchant_unsettled
    SET settling_sen = settling_sen - NEW.amount_sen, paid_out_sen = paid_out_sen + NEW.amount_sen
    WHERE merchant_id = NEW.merchant_id;
END;
CREATE TRIGGER ledger_pending_transfers AFTER INSERT ON ledger_entries
  WHEN NEW.kind IN ('disbursement', 'disbursement_returned')
BEGIN
  INSERT INTO merchant_unsettled (merchant_id, volume_sen, pending_sen, fees_sen)
    VALUES (NEW.merchant_id, 0,
            CASE NEW.kind WHEN 'disbursement' THEN -(NEW.amount_sen + NEW.fee_sen) ELSE NEW.amount_sen + NEW.fee_sen END,
            CASE NEW.kind WHEN 'disbursement' THEN NEW.fee_sen ELSE -NEW.fee_sen END)
    ON CONFLICT (merchant_id) DO UPDATE SET pending_sen = pending_sen + excluded.pending_sen,
                                            fees_sen = fees_sen + excluded.fees_sen;
END;

-- 2. The unsettled queue: the entries a settlement will take (payments, refunds, disbursements and
--    returned ones no settlement has taken yet), one row each, written by the ledger's own inserts
--    and removed by the settlement that takes them. Finding who has something to settle, and taking
--    it, reads this queue, not the whole ledger.
CREATE TABLE unsettled_entries (
  entry_id    INTEGER PRIMARY KEY,
  merchant_id TEXT NOT NULL,
  at          INTEGER NOT NULL
) STRICT;
INSERT INTO unsettled_entries (entry_id, merchant_id, at)
SELECT e.id, e.merchant_id, e.at FROM ledger_entries e
WHERE e.kind IN ('payment', 'refund', 'disbursement', 'disbursement_returned')
  AND NOT EXISTS (SELECT 1 FROM settlement_items i WHERE i.entry_id = e.id);
CREATE INDEX unsettled_entries_by_merchant ON unsettled_entries (merchant_id, at);
CREATE INDEX unsettled_entries_by_time ON unsettled_entries (at);
CREATE TRIGGER ledger_unsettled_queue AFTER INSERT ON ledger_entries
  WHEN NEW.kind IN ('payment', 'refund', 'disbursement', 'disbursement_returned')
BEGIN
  INSERT INTO unsettled_entries (entry_id, merchant_id, at) VALUES (NEW.id, NEW.merchant_id, NEW.at);
END;
