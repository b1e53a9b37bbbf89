-- Console sessions are stateless tokens: logging out records a time before which every session of
-- that admin key (or that merchant's portal) is refused.
ALTER TABLE admin_keys ADD COLUMN sessions_not_before BIGINT;
ALTER TABLE merchants ADD COLUMN portal_not_before BIGINT;
