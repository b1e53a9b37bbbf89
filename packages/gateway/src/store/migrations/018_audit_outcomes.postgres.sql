-- An admin action's audit row is written before the action runs (its intent: who, from where,
-- what, the resource before); how it ended is appended here once it is answered. An action
-- without its audit row cannot exist: a row whose outcome is missing is an action the gateway
-- stopped during. Append-only, as the audit log.
CREATE TABLE audit_outcomes (
  -- No foreign key: TRUNCATE of audit_log must meet its append-only trigger, not a constraint.
  audit_id    BIGINT PRIMARY KEY,
  at          BIGINT NOT NULL,
  http_status INTEGER NOT NULL,
  target      TEXT,
  -- What the action turned out to be, when the row's action only named the route (console, portal).
  action      TEXT,
  after       TEXT
);
CREATE INDEX audit_outcomes_by_target ON audit_outcomes (target) WHERE target IS NOT NULL;
CREATE TRIGGER audit_outcomes_append_only BEFORE UPDATE OR DELETE ON audit_outcomes
  FOR EACH ROW EXECUTE FUNCTION snapgate_audit_append_only();
CREATE TRIGGER audit_outcomes_no_truncate BEFORE TRUNCATE ON audit_outcomes
  FOR EACH STATEMENT EXECUTE FUNCTION snapgate_audit_append_only();
