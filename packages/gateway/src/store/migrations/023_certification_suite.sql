-- Which suite a stored run is: a merchant's webhook certification (`webhook-certification`, every
-- run before this) or a SNAP conformance run against the gateway as that merchant
-- (`snap-server-conformance`, run from the console). One table, one report shape.
ALTER TABLE certifications ADD COLUMN suite TEXT NOT NULL DEFAULT 'webhook-certification';
