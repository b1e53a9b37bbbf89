-- Verification that keeps up (docs/books.md#verification): an incremental verification checks that
-- every transaction paid since its checkpoint has its payment entry. Without an index on paid_at
-- that check read every transaction ever made, so its cost grew with the gateway's age. Paid
-- transactions only (paid_at is set when a transaction is paid), in the order they were paid, so a
-- payment appends at the index's end.
CREATE INDEX transactions_by_paid_at ON transactions (paid_at, reference_no) WHERE paid_at IS NOT NULL;
