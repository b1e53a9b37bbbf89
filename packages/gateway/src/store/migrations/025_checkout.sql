-- The hosted checkout (docs/checkout.md): a transaction's page is found by its checkout id, random
-- and not derived from any reference (16 random bytes, base64url). Transactions from before have
-- none (null) and no page. A merchant may let its own https origins frame its pages
-- (checkout_frame_ancestors, a JSON array; null: no one may frame them).
ALTER TABLE transactions ADD COLUMN checkout_id TEXT;
CREATE UNIQUE INDEX transactions_checkout_id ON transactions (checkout_id) WHERE checkout_id IS NOT NULL;
ALTER TABLE merchants ADD COLUMN checkout_frame_ancestors TEXT;
