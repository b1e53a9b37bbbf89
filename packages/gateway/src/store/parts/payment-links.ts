import type { LinkMethod, LinkPayment, PaymentLink } from '../../records/link-records.ts';
import { num, numOrNull, type Row, strOrNull } from '../rows.ts';
import { firstRow, type Sql } from '../sql.ts';
import { insertRow } from './access.ts';

// Payment links (docs/payment-links.md): one row each; their payments are the transactions that
// name them (transactions.payment_link_id).

function linkFromRow(r: Row): PaymentLink {
  return {
    id: String(r.id),
    merchantId: String(r.merchant_id),
    description: String(r.description),
    amount: strOrNull(r.amount),
    minAmount: strOrNull(r.min_amount),
    maxAmount: strOrNull(r.max_amount),
    expiresAt: numOrNull(r.expires_at),
    singleUse: Boolean(Number(r.single_use)),
    methods: JSON.parse(String(r.methods)) as LinkMethod[],
    returnUrl: strOrNull(r.return_url),
    active: Boolean(Number(r.active)),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

export async function insertPaymentLink(sql: Sql, l: PaymentLink): Promise<void> {
  await sql.run(
    ...insertRow('payment_links', {
      id: l.id,
      merchant_id: l.merchantId,
      description: l.description,
      amount: l.amount,
      min_amount: l.minAmount,
      max_amount: l.maxAmount,
      expires_at: l.expiresAt,
      single_use: l.singleUse ? 1 : 0,
      methods: JSON.stringify(l.methods),
      return_url: l.returnUrl,
      active: l.active ? 1 : 0,
      created_at: l.createdAt,
      updated_at: l.updatedAt,
    }),
  );
}

export async function findPaymentLink(sql: Sql, id: string): Promise<PaymentLink | undefined> {
  const r = await firstRow(sql.all('SELECT * FROM payment_links WHERE id = ?', [id]));
  return r ? linkFromRow(r) : undefined;
}

/** A merchant's links, newest first: `limit` of them made before `before` (a link's createdAt and id). */
export async function listPaymentLinks(
  sql: Sql,
  merchantId: string,
  limit: number,
  before?: { createdAt: number; id: string },
): Promise<PaymentLink[]> {
  const rows = before
    ? await sql.all(
        `SELECT * FROM payment_links WHERE merchant_id = ? AND (created_at < ? OR (created_at = ? AND id < ?))
         ORDER BY created_at DESC, id DESC LIMIT ?`,
        [merchantId, before.createdAt, before.createdAt, before.id, limit],
      )
    : await sql.all('SELECT * FROM payment_links WHERE merchant_id = ? ORDER BY created_at DESC, id DESC LIMIT ?', [
        merchantId,
        limit,
      ]);
  return rows.map(linkFromRow);
}

/** Deactivates the link while it is active: the link after, or undefined when it was not active. */
export async function deactivatePaymentLink(sql: Sql, id: string, at: number): Promise<PaymentLink | undefined> {
  const r = await firstRow(
    sql.all('UPDATE payment_links SET active = 0, updated_at = ? WHERE id = ? AND active = 1 RETURNING *', [at, id]),
  );
  return r ? linkFromRow(r) : undefined;
}

/** The payments made through a link, newest first (at most `limit`). */
export async function paymentsOfLink(sql: Sql, linkId: string, limit: number): Promise<LinkPayment[]> {
  const rows = await sql.all(
    `SELECT reference_no, kind, status, amount, paid_amount, created_at, checkout_id FROM transactions
     WHERE payment_link_id = ? ORDER BY created_at DESC, reference_no DESC LIMIT ?`,
    [linkId, limit],
  );
  return rows.map((r) => ({
    referenceNo: String(r.reference_no),
    kind: String(r.kind),
    status: String(r.status),
    amount: strOrNull(r.amount),
    paidAmount: strOrNull(r.paid_amount),
    createdAt: num(r.created_at),
    checkoutId: strOrNull(r.checkout_id),
  }));
}

/** A link's payments still under way (01, 02, 03), newest first (at most `limit`). */
export async function openPaymentsOfLink(sql: Sql, linkId: string, limit: number): Promise<string[]> {
  const rows = await sql.all(
    `SELECT reference_no FROM transactions WHERE payment_link_id = ? AND status IN ('01', '02', '03')
     ORDER BY created_at DESC, reference_no DESC LIMIT ?`,
    [linkId, limit],
  );
  return rows.map((r) => String(r.reference_no));
}

/** Whether any payment of a link was paid (00, or refunded since: 04), however many it has. */
export async function isLinkPaid(sql: Sql, linkId: string): Promise<boolean> {
  const r = await firstRow(
    sql.all(`SELECT 1 AS paid FROM transactions WHERE payment_link_id = ? AND status IN ('00', '04') LIMIT 1`, [
      linkId,
    ]),
  );
  return r !== undefined;
}
