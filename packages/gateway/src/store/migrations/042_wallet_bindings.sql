-- Account binding at a connected wallet (docs/ewallets.md#binding-at-a-connected-wallet): the
-- wallet's reference of a binding and its consent page, and the customer's token there, which
-- snapgate sends with the binding's payments and its unbinding. The tokens are sealed as every
-- secret the gateway reads back (AES-256-GCM under the master key, bound to their row).
ALTER TABLE account_bindings ADD COLUMN wallet_reference_no TEXT;
ALTER TABLE account_bindings ADD COLUMN wallet_redirect_url TEXT;
ALTER TABLE account_bindings ADD COLUMN wallet_access_token TEXT;
ALTER TABLE account_bindings ADD COLUMN wallet_access_token_expires_at BIGINT;
ALTER TABLE account_bindings ADD COLUMN wallet_refresh_token TEXT;
ALTER TABLE account_bindings ADD COLUMN wallet_refresh_token_expires_at BIGINT;
-- Bindings approved at a wallet whose authCode lapsed untraded are released (their wallet tokens
-- dropped, the binding ended at the wallet): found by this index, which holds only those waiting.
CREATE INDEX account_bindings_untraded ON account_bindings (auth_code_expires_at) WHERE status = 'authorized';
