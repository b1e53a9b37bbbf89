-- Disabling a merchant or provider retires every token issued until then: enabling it again must
-- not revive them (epoch milliseconds; NULL: never disabled).
ALTER TABLE merchants ADD COLUMN tokens_not_before BIGINT;
ALTER TABLE providers ADD COLUMN tokens_not_before BIGINT;
