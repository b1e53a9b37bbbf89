-- A transaction names its payment entry (docs/books.md#ledger), so the hot path writes no index
-- keyed by reference: measured, the unique (reference_no, cause) index put one more random page in
-- every payment's commit. A payment posts once because the guarded status change reaches 00 once
-- and sets payment_entry_id only while it is null; refunds, settlements and payouts (rare) keep a
-- unique cause; a transaction's refund entries are found by a small partial index.
ALTER TABLE transactions ADD COLUMN payment_entry_id INTEGER;
UPDATE transactions SET payment_entry_id = (
    SELECT e.id FROM ledger_entries e WHERE e.reference_no = transactions.reference_no AND e.cause = 'payment:' || transactions.reference_no
  )
  WHERE reference_no IN (SELECT reference_no FROM ledger_entries WHERE kind = 'payment');
DROP INDEX ledger_entries_by_reference;
DROP INDEX ledger_entries_by_cause;
CREATE UNIQUE INDEX ledger_entries_by_cause ON ledger_entries (cause) WHERE kind <> 'payment';
CREATE INDEX ledger_entries_refunds ON ledger_entries (reference_no) WHERE kind = 'refund';
-- An entry keeps its kind, its accounts' owners and its amounts; its lines are its kind's posting
-- (books/postings.ts), so they are not stored again: the row is half as long.
ALTER TABLE ledger_entries DROP COLUMN lines;
