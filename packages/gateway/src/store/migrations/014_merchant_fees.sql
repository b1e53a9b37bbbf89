-- The books (docs/books.md): a merchant's QRIS criteria, written into its QRIS, and its fees
-- (JSON; null: Bank Indonesia's QRIS MDR and free VAs).
ALTER TABLE merchants ADD COLUMN qris_criteria TEXT NOT NULL DEFAULT 'UMI';
ALTER TABLE merchants ADD COLUMN fees TEXT;
