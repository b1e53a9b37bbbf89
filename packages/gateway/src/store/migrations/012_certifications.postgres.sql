-- Webhook certification runs of a merchant (sandbox mode): when, whether every scenario passed,
-- and the whole report as JSON text.
CREATE TABLE certifications (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants (id),
  started_at BIGINT NOT NULL,
  finished_at BIGINT NOT NULL,
  passed SMALLINT NOT NULL CHECK (passed IN (0, 1)),
  report TEXT NOT NULL
);
CREATE INDEX certifications_by_merchant ON certifications (merchant_id, started_at);
