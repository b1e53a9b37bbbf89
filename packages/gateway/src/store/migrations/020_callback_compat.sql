-- Callbacks the SNAP libraries merchants already run accept (docs/clients.md), per merchant and
-- opt-in: a VA callback body in SNAP's VA payment shape, and an acknowledgement by any 200xxxx code
-- (DOKU's library answers 2002700, as a number).
ALTER TABLE merchants ADD COLUMN callback_va_body TEXT NOT NULL DEFAULT 'standard'
  CHECK (callback_va_body IN ('standard', 'snap-payment'));
ALTER TABLE merchants ADD COLUMN callback_ack TEXT NOT NULL DEFAULT 'strict'
  CHECK (callback_ack IN ('strict', 'any-200'));
