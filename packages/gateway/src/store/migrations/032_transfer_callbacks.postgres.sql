-- Transfer callbacks (docs/payouts.md#disbursements): a disbursement answered pending is told to its
-- merchant when it ends, through the one outbox (its signing, retries, attempt log and replay). A
-- notification then names a transfer, not a transaction: its reference_no no longer points into
-- transactions, and its kind may be `transfer`.
ALTER TABLE notifications DROP CONSTRAINT notifications_reference_no_fkey;
ALTER TABLE notifications DROP CONSTRAINT notifications_kind_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_kind_check CHECK (kind IN ('qris', 'va', 'transfer'));

-- Where a merchant's transfer callbacks go instead of `<callbackBaseUrl>/v1.0/transfer/notify`.
ALTER TABLE merchants ADD COLUMN transfer_callback_url TEXT;

-- Scheduled settlements of `auto` merchants no payout was asked for (the payout job pays those whose
-- instance stopped between making and paying them): found without reading every settlement.
CREATE INDEX settlements_unpaid_scheduled ON settlements (created_at)
  WHERE status = 'open' AND slot IS NOT NULL AND payout_id IS NULL AND last_payout_error IS NULL;
