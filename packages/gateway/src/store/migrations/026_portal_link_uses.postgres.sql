-- A merchant portal sign-in link works once (docs/console.md): the first entry with it records the
-- link's nonce here, and any later entry finds the row and is refused, on every instance. The
-- primary key decides between two entries at once. A row is kept until its link is well past its
-- expiry (the link's own signature refuses it by then), then the next entry deletes it.
CREATE TABLE portal_link_uses (
  nonce       TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants (id),
  used_at     BIGINT NOT NULL,
  expires_at  BIGINT NOT NULL
);
CREATE INDEX portal_link_uses_by_expiry ON portal_link_uses (expires_at);
