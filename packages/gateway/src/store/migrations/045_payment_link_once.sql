-- A single-use payment link takes one payment (docs/payment-links.md#single-use): its payments
-- carry the link's id here too, and at most one of them may be under way or paid (statuses 00 to
-- 04); an expired (06) or cancelled (05) one leaves room for the next. Two payers choosing at once,
-- on any instance, make one payment: the other insert is refused by this index.
ALTER TABLE transactions ADD COLUMN payment_link_once TEXT;
CREATE UNIQUE INDEX transactions_payment_link_once ON transactions (payment_link_once)
  WHERE payment_link_once IS NOT NULL AND status IN ('00', '01', '02', '03', '04');
