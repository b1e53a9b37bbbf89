-- Named admin API keys with a scope, stored as the SHA-256 of the key (shown once, never kept).
CREATE TABLE admin_keys (
  id           TEXT PRIMARY KEY,
  name         TEXT NOT NULL UNIQUE,
  scope        TEXT NOT NULL CHECK (scope IN ('read', 'operate', 'admin')),
  token_sha256 TEXT NOT NULL UNIQUE,
  created_at   BIGINT NOT NULL,
  last_used_at BIGINT,
  revoked_at   BIGINT
);

-- Who changed what, when, from where: every state-changing admin action. Append-only.
CREATE TABLE audit_log (
  id          BIGSERIAL PRIMARY KEY,
  at          BIGINT NOT NULL,
  key_id      TEXT NOT NULL,
  key_name    TEXT NOT NULL,
  address     TEXT NOT NULL,
  method      TEXT NOT NULL,
  path        TEXT NOT NULL,
  action      TEXT NOT NULL,
  target      TEXT,
  http_status INTEGER NOT NULL,
  request     TEXT,
  before      TEXT,
  after       TEXT
);
CREATE INDEX audit_log_by_target ON audit_log (target, id);
CREATE FUNCTION snapgate_audit_append_only() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'audit_log is append-only';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION snapgate_audit_append_only();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION snapgate_audit_append_only();
