-- Money bounds (docs/operations.md#money-bounds): what one merchant may have unsettled, the payments
-- and refunds no settlement has taken yet, is at most 1,000,000,000,000,000.00 IDR (10^17 sen), so
-- every sum a settlement stores stays far inside a 64-bit integer. Kept as a running total beside
-- the ledger, moved by the ledger's own inserts (triggers), so no door can post around it: a payment
-- or refund that would pass the bound fails its whole write with this CHECK, and its door answers
-- 403 "Exceeds Transaction Amount Limit".
CREATE TABLE merchant_unsettled (
  merchant_id TEXT PRIMARY KEY,
  volume_sen  INTEGER NOT NULL,
  CONSTRAINT unsettled_within_limit CHECK (volume_sen <= 100000000000000000)
) STRICT;

-- What is unsettled today. A database the bound came too late for (one merchant already past it)
-- starts at the bound: that merchant takes no more until a settlement takes what it holds.
-- (`total()`, a float, only decides, with a margin for its rounding; `sum()`, exact, runs only
-- below the bound, where it cannot overflow.)
INSERT INTO merchant_unsettled (merchant_id, volume_sen)
SELECT u.merchant_id,
       CASE WHEN u.approximate > 99999999999990000 THEN 100000000000000000
            ELSE (SELECT sum(e.amount_sen) FROM ledger_entries e
                  WHERE e.merchant_id = u.merchant_id AND e.kind IN ('payment', 'refund')
                    AND NOT EXISTS (SELECT 1 FROM settlement_items i WHERE i.entry_id = e.id)) END
FROM (SELECT e.merchant_id, total(e.amount_sen) AS approximate FROM ledger_entries e
      WHERE e.kind IN ('payment', 'refund') AND NOT EXISTS (SELECT 1 FROM settlement_items i WHERE i.entry_id = e.id)
      GROUP BY e.merchant_id) u;

CREATE TRIGGER ledger_unsettled_in AFTER INSERT ON ledger_entries WHEN NEW.kind IN ('payment', 'refund')
BEGIN
  INSERT INTO merchant_unsettled (merchant_id, volume_sen) VALUES (NEW.merchant_id, NEW.amount_sen)
    ON CONFLICT (merchant_id) DO UPDATE SET volume_sen = volume_sen + excluded.volume_sen;
END;

-- A settlement's entry is posted after its sums are written (store/parts/settlements.ts).
CREATE TRIGGER ledger_unsettled_out AFTER INSERT ON ledger_entries WHEN NEW.kind = 'settlement'
BEGIN
  UPDATE merchant_unsettled
    SET volume_sen = volume_sen - (SELECT gross_sen + refunds_sen FROM settlements WHERE id = NEW.settlement_id)
    WHERE merchant_id = NEW.merchant_id;
END;
