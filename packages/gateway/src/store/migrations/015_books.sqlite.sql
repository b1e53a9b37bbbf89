-- The books (docs/books.md): a double-entry ledger, settlements and reconciliation runs.

-- The ledger: one row per entry, its lines as JSON ([{"account", "debit", "credit"}] in sen).
-- Append-only: no entry is ever changed or deleted (triggers below). `cause` names what posted it
-- (payment:<referenceNo>, refund:<refundNo>, settlement:<id>, payout:<id>): unique, so a status
-- change reached twice (repeat, race, crash and retry) posts once.
CREATE TABLE ledger_entries (
  -- Never reused: entries are never deleted, so the rowid only grows (no AUTOINCREMENT table to write).
  id            INTEGER PRIMARY KEY,
  at            INTEGER NOT NULL,
  kind          TEXT NOT NULL CHECK (kind IN ('payment', 'refund', 'settlement', 'payout')),
  cause         TEXT NOT NULL,
  merchant_id   TEXT NOT NULL,
  provider_id   TEXT,
  reference_no  TEXT,
  refund_no     TEXT,
  settlement_id TEXT,
  amount_sen    INTEGER NOT NULL CHECK (amount_sen >= 0),
  fee_sen       INTEGER NOT NULL DEFAULT 0 CHECK (fee_sen >= 0),
  lines         TEXT NOT NULL
) STRICT;
CREATE INDEX ledger_entries_by_merchant ON ledger_entries (merchant_id, id);
-- A cause posts once: a transaction's payment and refunds by (reference_no, cause), which also finds
-- a transaction's entries; settlements and payouts (no reference) by cause alone. One index written
-- per payment, not two.
CREATE UNIQUE INDEX ledger_entries_by_reference ON ledger_entries (reference_no, cause) WHERE reference_no IS NOT NULL;
CREATE UNIQUE INDEX ledger_entries_by_cause ON ledger_entries (cause) WHERE reference_no IS NULL;
CREATE INDEX ledger_entries_by_provider ON ledger_entries (provider_id, at) WHERE kind = 'payment';
CREATE TRIGGER ledger_entries_no_update BEFORE UPDATE ON ledger_entries
BEGIN SELECT RAISE(ABORT, 'ledger_entries is append-only'); END;
CREATE TRIGGER ledger_entries_no_delete BEFORE DELETE ON ledger_entries
BEGIN SELECT RAISE(ABORT, 'ledger_entries is append-only'); END;

-- When the books began: transactions paid before (an upgraded database) have no entries.
INSERT INTO settings (key, value) VALUES ('ledger_started_at', CAST(CAST(unixepoch('subsec') * 1000 AS INTEGER) AS TEXT))
  ON CONFLICT (key) DO NOTHING;

-- Settlements: what a merchant is owed up to a cutoff; `open` until paid out.
CREATE TABLE settlements (
  id             TEXT PRIMARY KEY,
  merchant_id    TEXT NOT NULL,
  cutoff         INTEGER NOT NULL,
  status         TEXT NOT NULL CHECK (status IN ('open', 'paid')),
  count          INTEGER NOT NULL,
  gross_sen      INTEGER NOT NULL,
  fees_sen       INTEGER NOT NULL,
  refunds_sen    INTEGER NOT NULL,
  net_sen        INTEGER NOT NULL,
  created_at     INTEGER NOT NULL,
  paid_at        INTEGER,
  bank_reference TEXT,
  -- The scheduled run that made it (null: on demand): one settlement per merchant per run.
  slot           TEXT
) STRICT;
CREATE INDEX settlements_by_merchant ON settlements (merchant_id, created_at);
CREATE UNIQUE INDEX settlements_one_per_slot ON settlements (merchant_id, slot) WHERE slot IS NOT NULL;

-- Which entries a settlement took: an entry is in at most one settlement (the primary key).
CREATE TABLE settlement_items (
  entry_id      INTEGER PRIMARY KEY REFERENCES ledger_entries (id),
  settlement_id TEXT NOT NULL REFERENCES settlements (id)
) STRICT;
CREATE INDEX settlement_items_by_settlement ON settlement_items (settlement_id);
CREATE TRIGGER settlement_items_no_update BEFORE UPDATE ON settlement_items
BEGIN SELECT RAISE(ABORT, 'settlement_items is append-only'); END;
CREATE TRIGGER settlement_items_no_delete BEFORE DELETE ON settlement_items
BEGIN SELECT RAISE(ABORT, 'settlement_items is append-only'); END;

-- Reconciliation runs against a provider's report, kept as they were found (problems as JSON);
-- a problem applied is recorded once in reconciliation_resolutions.
CREATE TABLE reconciliations (
  id          TEXT PRIMARY KEY,
  provider_id TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  from_day    TEXT NOT NULL,
  to_day      TEXT NOT NULL,
  lines       INTEGER NOT NULL,
  matched     INTEGER NOT NULL,
  problems    TEXT NOT NULL
) STRICT;
CREATE INDEX reconciliations_by_provider ON reconciliations (provider_id, created_at);
CREATE TABLE reconciliation_resolutions (
  reconciliation_id TEXT NOT NULL REFERENCES reconciliations (id),
  line              INTEGER NOT NULL,
  reference_no      TEXT NOT NULL,
  resolved_at       INTEGER NOT NULL,
  PRIMARY KEY (reconciliation_id, line)
) STRICT;
