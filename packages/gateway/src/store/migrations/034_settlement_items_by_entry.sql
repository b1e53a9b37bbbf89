-- A settlement's report is read a page at a time in the order its entries were written (keyset on
-- the entry id): an index that gives a settlement's entries in that order, so each page costs its
-- own rows, whatever the size of the settlement (docs/books.md#the-settlement-report-csv).
CREATE INDEX settlement_items_by_settlement_entry ON settlement_items (settlement_id, entry_id);
