-- The books at scale (docs/adr/0014-running-totals-and-the-unsettled-queue.md): a merchant's balance
-- and a settlement run cost what is new, not the gateway's age.
--
-- 1. Running totals. Each merchant's row of merchant_unsettled (migrations 028, 031) also keeps
--    what is settling, what was paid out and the fees kept, moved by the ledger's own inserts as its
--    pending balance is: the balance is one row, read at once. Filled from the ledger here, once.
ALTER TABLE merchant_unsettled ADD COLUMN settling_sen BIGINT NOT NULL DEFAULT 0;
ALTER TABLE merchant_unsettled ADD COLUMN paid_out_sen BIGINT NOT NULL DEFAULT 0;
ALTER TABLE merchant_unsettled ADD COLUMN fees_sen BIGINT NOT NULL DEFAULT 0;
INSERT INTO merchant_unsettled (merchant_id, volume_sen, pending_sen, settling_sen, paid_out_sen, fees_sen)
SELECT e.merchant_id, 0, 0,
       -- (sums are numeric here, exact; a database written before migration 028's bounds may hold
       -- more than a row can, and keeps the bound there.)
       LEAST(sum(CASE e.kind WHEN 'settlement' THEN e.amount_sen WHEN 'payout' THEN -e.amount_sen ELSE 0 END),
             100000000000000000),
       LEAST(sum(CASE e.kind WHEN 'payout' THEN e.amount_sen ELSE 0 END), 100000000000000000),
       LEAST(sum(CASE e.kind WHEN 'payment' THEN e.fee_sen WHEN 'disbursement' THEN e.fee_sen
                             WHEN 'disbursement_returned' THEN -e.fee_sen ELSE 0 END), 100000000000000000)
FROM ledger_entries e GROUP BY e.merchant_id
ON CONFLICT (merchant_id) DO UPDATE SET settling_sen = EXCLUDED.settling_sen, paid_out_sen = EXCLUDED.paid_out_sen,
  fees_sen = EXCLUDED.fees_sen;

-- 2. The unsettled queue: the entries a settlement will take (payments, refunds, disbursements and
--    returned ones no settlement has taken yet), one row each, written by the ledger's own inserts
--    and removed by the settlement that takes them. Finding who has something to settle, and taking
--    it, reads this queue, not the whole ledger.
CREATE TABLE unsettled_entries (
  entry_id    BIGINT PRIMARY KEY,
  merchant_id TEXT NOT NULL,
  at          BIGINT NOT NULL
);
INSERT INTO unsettled_entries (entry_id, merchant_id, at)
SELECT e.id, e.merchant_id, e.at FROM ledger_entries e
WHERE e.kind IN ('payment', 'refund', 'disbursement', 'disbursement_returned')
  AND NOT EXISTS (SELECT 1 FROM settlement_items i WHERE i.entry_id = e.id);
CREATE INDEX unsettled_entries_by_merchant ON unsettled_entries (merchant_id, at);
CREATE INDEX unsettled_entries_by_time ON unsettled_entries (at);

-- Each kind's move of the totals, and the queue, from the ledger's inserts.
CREATE OR REPLACE FUNCTION snapgate_ledger_unsettled() RETURNS trigger AS $$
BEGIN
  IF NEW.kind IN ('payment', 'refund', 'disbursement', 'disbursement_returned') THEN
    INSERT INTO unsettled_entries (entry_id, merchant_id, at) VALUES (NEW.id, NEW.merchant_id, NEW.at);
  END IF;
  IF NEW.kind IN ('payment', 'refund') THEN
    INSERT INTO merchant_unsettled (merchant_id, volume_sen, pending_sen, fees_sen)
      VALUES (NEW.merchant_id, NEW.amount_sen,
              CASE NEW.kind WHEN 'payment' THEN NEW.amount_sen - NEW.fee_sen ELSE -NEW.amount_sen END,
              CASE NEW.kind WHEN 'payment' THEN NEW.fee_sen ELSE 0 END)
      ON CONFLICT (merchant_id) DO UPDATE SET volume_sen = merchant_unsettled.volume_sen + EXCLUDED.volume_sen,
                                              pending_sen = merchant_unsettled.pending_sen + EXCLUDED.pending_sen,
                                              fees_sen = merchant_unsettled.fees_sen + EXCLUDED.fees_sen;
  ELSIF NEW.kind = 'settlement' THEN
    -- A settlement's entry is posted after its sums are written (store/parts/settlements.ts).
    UPDATE merchant_unsettled
      SET volume_sen = volume_sen - (SELECT gross_sen + refunds_sen FROM settlements WHERE id = NEW.settlement_id),
          pending_sen = pending_sen - NEW.amount_sen,
          settling_sen = settling_sen + NEW.amount_sen
      WHERE merchant_id = NEW.merchant_id;
  ELSIF NEW.kind = 'payout' THEN
    UPDATE merchant_unsettled
      SET settling_sen = settling_sen - NEW.amount_sen, paid_out_sen = paid_out_sen + NEW.amount_sen
      WHERE merchant_id = NEW.merchant_id;
  ELSIF NEW.kind IN ('disbursement', 'disbursement_returned') THEN
    INSERT INTO merchant_unsettled (merchant_id, volume_sen, pending_sen, fees_sen)
      VALUES (NEW.merchant_id, 0,
              CASE NEW.kind WHEN 'disbursement' THEN -(NEW.amount_sen + NEW.fee_sen) ELSE NEW.amount_sen + NEW.fee_sen END,
              CASE NEW.kind WHEN 'disbursement' THEN NEW.fee_sen ELSE -NEW.fee_sen END)
      ON CONFLICT (merchant_id) DO UPDATE SET pending_sen = merchant_unsettled.pending_sen + EXCLUDED.pending_sen,
                                              fees_sen = merchant_unsettled.fees_sen + EXCLUDED.fees_sen;
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
