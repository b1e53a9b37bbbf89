-- callbackJson `php-laravel`: PHP's json_encode bytes with every empty string written as null, the
-- bytes a Laravel merchant re-encodes after its ConvertEmptyStringsToNull middleware. Its own column
-- (as snap-b2b's): the SQLite table's CHECK on callback_json cannot change.
ALTER TABLE merchants ADD COLUMN callback_json_nulls INTEGER NOT NULL DEFAULT 0 CHECK (callback_json_nulls IN (0, 1));
