-- Disbursements (docs/payouts.md#disbursements): merchants send money out of what the gateway owes
-- them. The ledger gains three kinds (`disbursement` at the request, `disbursement_paid` when the bank
-- pays, `disbursement_returned` when it does not) and the `transfers` account (money on its way out).
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_check
  CHECK (kind IN ('payment', 'refund', 'settlement', 'payout', 'disbursement', 'disbursement_paid',
                  'disbursement_returned'));

-- Each merchant's pending balance, beside its unsettled volume, moved by the same trigger: a
-- disbursement is funded from it, and the row is what a disbursement and a settlement of the same
-- merchant both write first, so they take turns (docs/payouts.md#disbursements). Reading it costs no
-- sum over the merchant's history. What is pending today, from the ledger.
ALTER TABLE merchant_unsettled ADD COLUMN pending_sen BIGINT NOT NULL DEFAULT 0;
INSERT INTO merchant_unsettled (merchant_id, volume_sen, pending_sen)
SELECT e.merchant_id, 0,
       GREATEST(LEAST(sum(CASE e.kind WHEN 'payment' THEN e.amount_sen - e.fee_sen
                                      WHEN 'refund' THEN -e.amount_sen
                                      WHEN 'settlement' THEN -e.amount_sen ELSE 0 END),
                      100000000000000000), -100000000000000000)
FROM ledger_entries e GROUP BY e.merchant_id
ON CONFLICT (merchant_id) DO UPDATE SET pending_sen = EXCLUDED.pending_sen;

-- Each kind's move of the pending balance: a payment adds what the merchant is owed; a refund, a
-- settlement and a disbursement (amount and fee) take from it; a returned disbursement gives back.
CREATE OR REPLACE FUNCTION snapgate_ledger_unsettled() RETURNS trigger AS $$
BEGIN
  IF NEW.kind IN ('payment', 'refund') THEN
    INSERT INTO merchant_unsettled (merchant_id, volume_sen, pending_sen)
      VALUES (NEW.merchant_id, NEW.amount_sen,
              CASE NEW.kind WHEN 'payment' THEN NEW.amount_sen - NEW.fee_sen ELSE -NEW.amount_sen END)
      ON CONFLICT (merchant_id) DO UPDATE SET volume_sen = merchant_unsettled.volume_sen + EXCLUDED.volume_sen,
                                              pending_sen = merchant_unsettled.pending_sen + EXCLUDED.pending_sen;
  ELSIF NEW.kind = 'settlement' THEN
    -- A settlement's entry is posted after its sums are written (store/parts/settlements.ts).
    UPDATE merchant_unsettled
      SET volume_sen = volume_sen - (SELECT gross_sen + refunds_sen FROM settlements WHERE id = NEW.settlement_id),
          pending_sen = pending_sen - NEW.amount_sen
      WHERE merchant_id = NEW.merchant_id;
  ELSIF NEW.kind IN ('disbursement', 'disbursement_returned') THEN
    INSERT INTO merchant_unsettled (merchant_id, volume_sen, pending_sen)
      VALUES (NEW.merchant_id, 0, CASE NEW.kind WHEN 'disbursement' THEN -(NEW.amount_sen + NEW.fee_sen)
                                                ELSE NEW.amount_sen + NEW.fee_sen END)
      ON CONFLICT (merchant_id) DO UPDATE SET pending_sen = merchant_unsettled.pending_sen + EXCLUDED.pending_sen;
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

-- A settlement nets the disbursements before its cutoff (amounts and fees) and those returned.
ALTER TABLE settlements ADD COLUMN disbursed_sen BIGINT NOT NULL DEFAULT 0;
ALTER TABLE settlements ADD COLUMN returned_sen BIGINT NOT NULL DEFAULT 0;

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
