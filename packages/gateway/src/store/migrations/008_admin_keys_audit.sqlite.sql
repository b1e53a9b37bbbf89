-- Named admin API keys with a scope, stored as the SHA-256 of the key (shown once, never kept).
CREATE TABLE admin_keys (
  id           TEXT PRIMARY KEY,
  name         TEXT NOT NULL UNIQUE,
  scope        TEXT NOT NULL CHECK (scope IN ('read', 'operate', 'admin')),
  token_sha256 TEXT NOT NULL UNIQUE,
  created_at   INTEGER NOT NULL,
  last_used_at INTEGER,
  revoked_at   INTEGER
) STRICT;

-- Who changed what, when, from where: every state-changing admin action. Append-only.
CREATE TABLE audit_log (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  at          INTEGER NOT NULL,
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
) STRICT;
CREATE INDEX audit_log_by_target ON audit_log (target, id);
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
