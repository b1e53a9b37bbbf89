-- Search by part of any reference, any case (docs/admin-api.md#transactions): the references of a
-- transaction (its referenceNo, the merchant's partnerReferenceNo, its VA number) as one lower-case
-- text, indexed by trigrams (pg_trgm, a trusted extension: a database owner may create it), so a
-- LIKE of three characters or more reads the index, not the table.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX transactions_search ON transactions USING gin
  ((lower(reference_no || ' ' || partner_reference_no || ' ' || coalesce(virtual_account_no, ''))) gin_trgm_ops);
