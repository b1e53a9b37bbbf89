-- The resource before an action, when the action's row could not know it when it was written: a
-- console or portal form's row is written before the form is read (who, from where, the route and
-- the fields), and the form says what it changed only once it acts. Read as the row's `before`
-- when the row has none.
ALTER TABLE audit_outcomes ADD COLUMN before TEXT;
