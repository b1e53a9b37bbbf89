import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CallbackAction, DedupeStore, StatusStore, TransactionStatus } from '@snapgate/merchant-sdk';
import Database from 'better-sqlite3';

export type OrderStatus = 'PENDING' | 'PAID' | 'FAILED' | 'CANCELED' | 'REFUNDED';
export type PaymentMethod = 'qris' | 'va';

export interface Order {
  id: string;
  method: PaymentMethod;
  amount: { value: string; currency: string };
  status: OrderStatus;
  /** The gateway's referenceNo (QRIS) once known. */
  referenceNo: string | null;
  qrContent: string | null;
  virtualAccountNo: string | null;
  createdAt: string;
  updatedAt: string;
}

interface OrderRow {
  id: string;
  method: PaymentMethod;
  amount: string;
  status: OrderStatus;
  reference_no: string | null;
  qr_content: string | null;
  virtual_account_no: string | null;
  created_at: string;
  updated_at: string;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS orders (
  id TEXT PRIMARY KEY,
  method TEXT NOT NULL,
  amount TEXT NOT NULL,
  status TEXT NOT NULL,
  reference_no TEXT,
  qr_content TEXT,
  virtual_account_no TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
-- The SDK's pluggable stores, kept next to the orders so they survive a restart.
CREATE TABLE IF NOT EXISTS callback_seen (external_id TEXT PRIMARY KEY, seen_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS callback_status (reference_no TEXT PRIMARY KEY, status TEXT NOT NULL);
`;

// What each callback action does to an order, and from which status (a final order stays final).
const TRANSITIONS: Partial<Record<CallbackAction, { from: OrderStatus; to: OrderStatus }>> = {
  PAID: { from: 'PENDING', to: 'PAID' },
  FAILED: { from: 'PENDING', to: 'FAILED' },
  CANCELED: { from: 'PENDING', to: 'CANCELED' },
  REFUNDED: { from: 'PAID', to: 'REFUNDED' },
};

const toOrder = (r: OrderRow): Order => ({
  id: r.id,
  method: r.method,
  amount: { value: r.amount, currency: 'IDR' },
  status: r.status,
  referenceNo: r.reference_no,
  qrContent: r.qr_content,
  virtualAccountNo: r.virtual_account_no,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** The merchant's orders in one SQLite file. */
export function openOrderBook(dbFile: string) {
  if (dbFile !== ':memory:') mkdirSync(dirname(dbFile), { recursive: true });
  const db = new Database(dbFile);
  db.pragma('journal_mode = WAL');
  db.exec(SCHEMA);
  const now = () => new Date().toISOString();

  const dedupeStore: DedupeStore = {
    has: (id) => db.prepare('SELECT 1 FROM callback_seen WHERE external_id = ?').get(id) !== undefined,
    add: (id) => {
      db.prepare('INSERT OR IGNORE INTO callback_seen (external_id, seen_at) VALUES (?, ?)').run(id, now());
    },
  };
  const statusStore: StatusStore = {
    get: (ref) =>
      (
        db.prepare('SELECT status FROM callback_status WHERE reference_no = ?').get(ref) as
          | { status: TransactionStatus }
          | undefined
      )?.status,
    set: (ref, status) => {
      db.prepare('INSERT OR REPLACE INTO callback_status (reference_no, status) VALUES (?, ?)').run(ref, status);
    },
  };

  const find = (id: string): Order | undefined => {
    const row = db.prepare('SELECT * FROM orders WHERE id = ?').get(id) as OrderRow | undefined;
    return row && toOrder(row);
  };

  return {
    dedupeStore,
    statusStore,
    find,

    create(method: PaymentMethod, amount: string): Order {
      const id = `ORD-${randomBytes(6).toString('hex').toUpperCase()}`;
      const at = now();
      db.prepare(
        'INSERT INTO orders (id, method, amount, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
      ).run(id, method, amount, 'PENDING', at, at);
      return find(id) as Order;
    },

    /** Stores what the gateway answered for the order's payment. */
    attachPayment(
      id: string,
      p: { referenceNo?: string; qrContent?: string; virtualAccountNo?: string },
    ): Order | undefined {
      db.prepare(
        'UPDATE orders SET reference_no = ?, qr_content = ?, virtual_account_no = ?, updated_at = ? WHERE id = ?',
      ).run(p.referenceNo ?? null, p.qrContent ?? null, p.virtualAccountNo ?? null, now(), id);
      return find(id);
    },

    /** The gateway never answered with a payment: the order cannot be paid. */
    fail(id: string): void {
      db.prepare("UPDATE orders SET status = 'FAILED', updated_at = ? WHERE id = ? AND status = 'PENDING'").run(
        now(),
        id,
      );
    },

    /** Applies a callback's action; an order already past it is left alone (idempotent). */
    apply(id: string, action: CallbackAction): Order | undefined {
      const t = TRANSITIONS[action];
      if (t) {
        db.prepare('UPDATE orders SET status = ?, updated_at = ? WHERE id = ? AND status = ?').run(
          t.to,
          now(),
          id,
          t.from,
        );
      }
      return find(id);
    },

    close: () => db.close(),
  };
}

export type OrderBook = ReturnType<typeof openOrderBook>;
