-- An admin action's audit row is written before the action runs (its intent: who, from where,
-- what, the resource before); how it ended is appended here once it is answered. An action
-- without its audit row cannot exist: a row whose outcome is missing is an action the gateway
-- stopped during. Append-only, as the audit log.
CREATE TABLE audit_outcomes (
  audit_id    INTEGER PRIMARY KEY,
  at          INTEGER NOT NULL,
  http_status INTEGER NOT NULL,
  target      TEXT,
  -- What the action turned out to be, when the row's action only named the route (console, portal).
  action      TEXT,
  after       TEXT
) STRICT;
CREATE INDEX audit_outcomes_by_target ON audit_outcomes (target) WHERE target IS NOT NULL;
CREATE TRIGGER audit_outcomes_no_update BEFORE UPDATE ON audit_outcomes
BEGIN SELECT RAISE(ABORT, 'audit_outcomes is append-only'); END;
CREATE TRIGGER audit_outcomes_no_delete BEFORE DELETE ON audit_outcomes
BEGIN SELECT RAISE(ABORT, 'audit_outcomes is append-only'); END;
