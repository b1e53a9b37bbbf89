-- Every instance caches merchants and drops its cache on this notification, so a disabled
-- merchant or a rotated secret takes effect on all instances within milliseconds. A trigger,
-- so that any writer (an operator's SQL included) is covered.
CREATE FUNCTION snapgate_merchant_changed() RETURNS trigger AS $$
BEGIN
  PERFORM pg_notify('snapgate_merchants', '');
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER merchants_changed AFTER INSERT OR UPDATE OR DELETE ON merchants
  FOR EACH STATEMENT EXECUTE FUNCTION snapgate_merchant_changed();
