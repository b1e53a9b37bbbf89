-- Payment links (docs/payment-links.md): a merchant's link a payer opens at /l/<id>, picks a
-- method, and pays through an ordinary transaction that names the link. `methods` is a JSON array
-- (`qris`, `va:<bankCode>`, `ewallet:<payOption>`); amounts are SNAP money strings (null: the
-- payer types one, between min_amount and max_amount when set).
CREATE TABLE payment_links (
  id          TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL,
  description TEXT NOT NULL,
  amount      TEXT,
  min_amount  TEXT,
  max_amount  TEXT,
  expires_at  BIGINT,
  single_use  INTEGER NOT NULL,
  methods     TEXT NOT NULL,
  return_url  TEXT,
  active      INTEGER NOT NULL,
  created_at  BIGINT NOT NULL,
  updated_at  BIGINT NOT NULL
);
CREATE INDEX payment_links_by_merchant ON payment_links (merchant_id, created_at);

-- The link a transaction was made from, if any; a link's payments are read by it.
ALTER TABLE transactions ADD COLUMN payment_link_id TEXT;
CREATE INDEX transactions_by_payment_link ON transactions (payment_link_id, created_at) WHERE payment_link_id IS NOT NULL;
