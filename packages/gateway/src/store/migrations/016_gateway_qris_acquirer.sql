-- The acquirer that acquires the QRIS snapgate issues itself (merchants without a qrisProvider):
-- the only one, with the sandbox acquirer in sandbox mode, that may notify such a QRIS. At most one.
ALTER TABLE providers ADD COLUMN acquires_gateway_qris INTEGER NOT NULL DEFAULT 0 CHECK (acquires_gateway_qris IN (0, 1));
CREATE UNIQUE INDEX providers_one_gateway_qris_acquirer ON providers (acquires_gateway_qris) WHERE acquires_gateway_qris = 1;
