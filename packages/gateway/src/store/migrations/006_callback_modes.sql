-- Callback modes real merchant code expects: how bodies are serialised (standard JSON, or PHP's
-- json_encode), and SNAP's token-bound callbacks (snap-b2b: callback_b2b = 1, with the merchant's
-- token endpoint; a column of its own because SQLite cannot change callback_signature's CHECK).
ALTER TABLE merchants ADD COLUMN callback_json TEXT NOT NULL DEFAULT 'standard'
  CHECK (callback_json IN ('standard', 'php'));
ALTER TABLE merchants ADD COLUMN callback_b2b INTEGER NOT NULL DEFAULT 0 CHECK (callback_b2b IN (0, 1));
ALTER TABLE merchants ADD COLUMN callback_token_url TEXT;
