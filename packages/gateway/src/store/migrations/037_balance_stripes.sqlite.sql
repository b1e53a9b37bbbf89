-- One busy merchant, several instances (docs/adr/0015-balance-stripes.md): on PostgreSQL a
-- merchant's running totals are up to 16 rows (stripes) so that payments of one merchant on several
-- instances do not queue behind one row lock. SQLite has one writer and so nothing to spread: every
-- entry keeps moving stripe 0 (the triggers of migration 033 are unchanged), and the store's code,
-- shared by both engines, reads the column and the unique (merchant_id, stripe) it names.
ALTER TABLE merchant_unsettled ADD COLUMN stripe INTEGER NOT NULL DEFAULT 0 CHECK (stripe = 0);
CREATE UNIQUE INDEX merchant_unsettled_stripes ON merchant_unsettled (merchant_id, stripe);
