-- A reconciliation run's problems, one row each (docs/books.md#runs), read a page at a time: a
-- report of 100,000 lines may have as many problems, too many to read, write or send as one JSON
-- value. `seq` is a problem's place in its run (1, 2, …: line order, `missing_at_provider` last);
-- `reported_*` is what its line said, kept to apply it later. A run's problems are written in
-- batches before its row in reconciliations, which makes the run visible whole: rows whose run was
-- never written (the gateway stopped between) are never read. The runs' JSON moves here.
CREATE TABLE reconciliation_problems (
  reconciliation_id           TEXT NOT NULL,
  seq                         INTEGER NOT NULL,
  line                        INTEGER,
  type                        TEXT NOT NULL,
  reference_no                TEXT,
  expected                    TEXT,
  actual                      TEXT,
  reported_amount             TEXT,
  reported_provider_reference TEXT,
  PRIMARY KEY (reconciliation_id, seq)
);
CREATE INDEX reconciliation_problems_by_line ON reconciliation_problems (reconciliation_id, line);
INSERT INTO reconciliation_problems
  (reconciliation_id, seq, line, type, reference_no, expected, actual, reported_amount, reported_provider_reference)
SELECT r.id, p.seq, (p.value ->> 'line')::integer, p.value ->> 'type', p.value ->> 'referenceNo',
  p.value ->> 'expected', p.value ->> 'actual', p.value -> 'reported' ->> 'amount',
  p.value -> 'reported' ->> 'providerReference'
FROM reconciliations r CROSS JOIN LATERAL jsonb_array_elements(r.problems::jsonb) WITH ORDINALITY AS p (value, seq);
ALTER TABLE reconciliations ADD COLUMN problem_count INTEGER NOT NULL DEFAULT 0;
UPDATE reconciliations SET problem_count = jsonb_array_length(problems::jsonb);
ALTER TABLE reconciliations DROP COLUMN problems;
