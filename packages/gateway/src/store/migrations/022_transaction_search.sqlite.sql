-- Search by part of any reference, any case (the console's transaction search): the references of
-- a transaction (its referenceNo, the merchant's partnerReferenceNo, its VA number) as one text,
-- indexed by trigrams (FTS5), so a search of three characters or more reads an index, not the table.
-- A table of its own, keyed by reference (not external content: VACUUM may renumber rowids).
CREATE VIRTUAL TABLE transactions_search USING fts5(reference_no UNINDEXED, refs, tokenize = 'trigram');
INSERT INTO transactions_search (reference_no, refs)
  SELECT reference_no, reference_no || ' ' || partner_reference_no || ' ' || coalesce(virtual_account_no, '')
  FROM transactions;
-- Measured: indexing each new transaction in its own commit cost the payment API 12-22 % (FTS5
-- writes a segment per commit). A new transaction is queued here instead (one row at the end of a
-- b-tree); the store moves the queue into the index in batches, about once a second, and a search
-- reads the queue's few rows as well, so it misses nothing.
CREATE TABLE transactions_search_queue (id INTEGER PRIMARY KEY, reference_no TEXT NOT NULL) STRICT;
CREATE TRIGGER transactions_search_queued AFTER INSERT ON transactions BEGIN
  INSERT INTO transactions_search_queue (reference_no) VALUES (new.reference_no);
END;
