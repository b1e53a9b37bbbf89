-- Verification that keeps up (docs/books.md#verification): each clean verification keeps where it
-- got to, so the next reads only what was written since. A checkpoint holds the last entry it
-- covers, how many entries that is, until when paid transactions were checked for their payment
-- entry, and the sums it carries forward: every account's balance, and each merchant's paid out and
-- fees (JSON, sen as decimal text). Append-only: the latest row is the one read.
CREATE TABLE ledger_checkpoints (
  id               INTEGER PRIMARY KEY,
  through_entry_id INTEGER NOT NULL,
  entries          INTEGER NOT NULL,
  paid_through     INTEGER NOT NULL,
  account_sums     TEXT NOT NULL,
  merchant_sums    TEXT NOT NULL,
  at               INTEGER NOT NULL
) STRICT;
