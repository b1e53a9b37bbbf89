-- One busy merchant, several instances (docs/adr/0015-balance-stripes.md): every payment's
-- transaction updated its merchant's one balance row and held that row's lock until it committed,
-- so two instances paying one merchant took turns (measured: 0.46-0.54x of the same payments
-- spread over 64 merchants). A merchant's running totals are now up to 16 rows (stripes): a
-- payment entry moves stripe (entry id mod 16), everything else (refunds, settlements, payouts,
-- disbursements) stripe 0, and a balance is their sum. A settlement (which locks stripe 0 first)
-- folds the other stripes into stripe 0, so no stripe grows past a day's payments.
ALTER TABLE merchant_unsettled ADD COLUMN stripe SMALLINT NOT NULL DEFAULT 0;
ALTER TABLE merchant_unsettled DROP CONSTRAINT merchant_unsettled_pkey;
ALTER TABLE merchant_unsettled ADD PRIMARY KEY (merchant_id, stripe);
-- The money bound (migration 028) is over the merchant's stripes together, checked by the trigger;
-- a row of one stripe may hold more or less than the bound.
ALTER TABLE merchant_unsettled DROP CONSTRAINT unsettled_within_limit;

CREATE OR REPLACE FUNCTION snapgate_ledger_unsettled() RETURNS trigger AS $$
DECLARE
  lane SMALLINT := 0;
BEGIN
  IF NEW.kind IN ('payment', 'refund', 'disbursement', 'disbursement_returned') THEN
    INSERT INTO unsettled_entries (entry_id, merchant_id, at) VALUES (NEW.id, NEW.merchant_id, NEW.at);
  END IF;
  IF NEW.kind IN ('payment', 'refund') THEN
    IF NEW.kind = 'payment' THEN
      lane := NEW.id % 16;
    END IF;
    INSERT INTO merchant_unsettled (merchant_id, stripe, volume_sen, pending_sen, fees_sen)
      VALUES (NEW.merchant_id, lane, NEW.amount_sen,
              CASE NEW.kind WHEN 'payment' THEN NEW.amount_sen - NEW.fee_sen ELSE -NEW.amount_sen END,
              CASE NEW.kind WHEN 'payment' THEN NEW.fee_sen ELSE 0 END)
      ON CONFLICT (merchant_id, stripe) DO UPDATE SET volume_sen = merchant_unsettled.volume_sen + EXCLUDED.volume_sen,
                                                      pending_sen = merchant_unsettled.pending_sen + EXCLUDED.pending_sen,
                                                      fees_sen = merchant_unsettled.fees_sen + EXCLUDED.fees_sen;
    -- The bound over every stripe, as this transaction sees them: its own stripe as it just wrote
    -- it, the others as committed. Payments committing at the same instant on other stripes are not
    -- seen, so together they may pass the bound by at most what they carry (ADR 0015).
    IF (SELECT sum(volume_sen) FROM merchant_unsettled WHERE merchant_id = NEW.merchant_id) > 100000000000000000 THEN
      RAISE EXCEPTION 'new row for relation "merchant_unsettled" violates check constraint "unsettled_within_limit"'
        USING ERRCODE = 'check_violation', CONSTRAINT = 'unsettled_within_limit', TABLE = 'merchant_unsettled';
    END IF;
  ELSIF NEW.kind = 'settlement' THEN
    -- A settlement's entry is posted after its sums are written (store/parts/settlements.ts), and
    -- after it folded the merchant's stripes into stripe 0.
    UPDATE merchant_unsettled
      SET volume_sen = volume_sen - (SELECT gross_sen + refunds_sen FROM settlements WHERE id = NEW.settlement_id),
          pending_sen = pending_sen - NEW.amount_sen,
          settling_sen = settling_sen + NEW.amount_sen
      WHERE merchant_id = NEW.merchant_id AND stripe = 0;
  ELSIF NEW.kind = 'payout' THEN
    UPDATE merchant_unsettled
      SET settling_sen = settling_sen - NEW.amount_sen, paid_out_sen = paid_out_sen + NEW.amount_sen
      WHERE merchant_id = NEW.merchant_id AND stripe = 0;
  ELSIF NEW.kind IN ('disbursement', 'disbursement_returned') THEN
    INSERT INTO merchant_unsettled (merchant_id, stripe, volume_sen, pending_sen, fees_sen)
      VALUES (NEW.merchant_id, 0, 0,
              CASE NEW.kind WHEN 'disbursement' THEN -(NEW.amount_sen + NEW.fee_sen) ELSE NEW.amount_sen + NEW.fee_sen END,
              CASE NEW.kind WHEN 'disbursement' THEN NEW.fee_sen ELSE -NEW.fee_sen END)
      ON CONFLICT (merchant_id, stripe) DO UPDATE SET pending_sen = merchant_unsettled.pending_sen + EXCLUDED.pending_sen,
                                                      fees_sen = merchant_unsettled.fees_sen + EXCLUDED.fees_sen;
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
