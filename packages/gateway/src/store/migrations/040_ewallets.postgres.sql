-- E-wallets over SNAP Direct Debit (docs/ewallets.md). A provider may be a wallet (kind `ewallet`,
-- serving one `payOption`), and a notification may carry its own callback URL: an e-wallet
-- payment's `PAY_NOTIFY`, which replaces the merchant's for that payment's callbacks.
ALTER TABLE providers DROP CONSTRAINT providers_kind_check;
ALTER TABLE providers ADD CONSTRAINT providers_kind_check CHECK (kind IN ('bank', 'acquirer', 'ewallet'));
ALTER TABLE providers ADD COLUMN pay_option TEXT;
-- One active wallet per payOption: which provider a payment goes to is never ambiguous.
CREATE UNIQUE INDEX providers_active_pay_option ON providers (pay_option)
  WHERE kind = 'ewallet' AND status = 'active';
ALTER TABLE notifications ADD COLUMN callback_url TEXT;
