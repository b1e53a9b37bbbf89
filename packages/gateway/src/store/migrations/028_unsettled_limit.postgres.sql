-- Money bounds (docs/operations.md#money-bounds): what one merchant may have unsettled, the payments
-- and refunds no settlement has taken yet, is at most 1,000,000,000,000,000.00 IDR (10^17 sen), so
-- every sum a settlement stores stays far inside a 64-bit integer. Kept as a running total beside
-- the ledger, moved by the ledger's own inserts (a trigger), so no door can post around it: a payment
-- or refund that would pass the bound fails its whole statement with this CHECK, and its door
-- answers 403 "Exceeds Transaction Amount Limit".
CREATE TABLE merchant_unsettled (
  merchant_id TEXT PRIMARY KEY,
  volume_sen  BIGINT NOT NULL,
  CONSTRAINT unsettled_within_limit CHECK (volume_sen <= 100000000000000000)
);

-- Sums of sen as exact as SQLite's exact_sum (registered by the embedded store): numeric, never
-- overflowing, whatever the history.
CREATE AGGREGATE exact_sum(numeric) (SFUNC = numeric_add, STYPE = numeric, INITCOND = '0');

-- What is unsettled today. A database the bound came too late for (one merchant already past it)
-- starts at the bound: that merchant takes no more until a settlement takes what it holds.
INSERT INTO merchant_unsettled (merchant_id, volume_sen)
SELECT e.merchant_id, LEAST(sum(e.amount_sen), 100000000000000000) FROM ledger_entries e
WHERE e.kind IN ('payment', 'refund') AND NOT EXISTS (SELECT 1 FROM settlement_items i WHERE i.entry_id = e.id)
GROUP BY e.merchant_id;

CREATE FUNCTION snapgate_ledger_unsettled() RETURNS trigger AS $$
BEGIN
  IF NEW.kind IN ('payment', 'refund') THEN
    INSERT INTO merchant_unsettled (merchant_id, volume_sen) VALUES (NEW.merchant_id, NEW.amount_sen)
      ON CONFLICT (merchant_id) DO UPDATE SET volume_sen = merchant_unsettled.volume_sen + EXCLUDED.volume_sen;
  ELSIF NEW.kind = 'settlement' THEN
    -- A settlement's entry is posted after its sums are written (store/parts/settlements.ts).
    UPDATE merchant_unsettled
      SET volume_sen = volume_sen - (SELECT gross_sen + refunds_sen FROM settlements WHERE id = NEW.settlement_id)
      WHERE merchant_id = NEW.merchant_id;
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER ledger_entries_unsettled AFTER INSERT ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION snapgate_ledger_unsettled();
