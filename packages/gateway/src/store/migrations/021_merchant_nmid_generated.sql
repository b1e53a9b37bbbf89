-- Whether a merchant's NMID was made up by the gateway (none was given): such a QRIS is no real
-- payer's to pay, so production mode issues none for it without an acquirer (docs/protocol.md#qris).
-- Merchants from before keep 0: their NMIDs are taken as the operator's.
ALTER TABLE merchants ADD COLUMN nmid_generated INTEGER NOT NULL DEFAULT 0 CHECK (nmid_generated IN (0, 1));
