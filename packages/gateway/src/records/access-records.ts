// Who may use the admin API and what they did with it: admin keys and the audit trail.

/** `approve`: may only approve or reject payouts (docs/payouts.md#paying-a-settlement), nothing else. */
export type AdminScope = 'read' | 'operate' | 'admin' | 'approve';

/** A named admin API key; the key itself is never stored, only its SHA-256. */
export interface AdminKeyRecord {
  id: string;
  name: string;
  scope: AdminScope;
  tokenSha256: string;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
  /** Console sessions of this key issued until then are refused (console log-out). */
  sessionsNotBefore?: number | null;
}

/** One state-changing admin action: who, what (before and after, secrets redacted), when, from where. */
export interface AuditEntry {
  at: number;
  keyId: string;
  keyName: string;
  address: string;
  method: string;
  path: string;
  /** The route, e.g. `PATCH /admin/v1/merchants/:id`. */
  action: string;
  /** The id the action was about, when it had one. */
  target: string | null;
  httpStatus: number;
  /** JSON texts, secrets redacted. */
  request: string | null;
  before: string | null;
  after: string | null;
}

export interface StoredAuditEntry extends AuditEntry {
  id: number;
}

/** How an action whose audit row was written before it ran ended. */
export interface AuditOutcome {
  at: number;
  httpStatus: number;
  /** The id the action made or was about, when the row did not know it yet (a create). */
  target: string | null;
  /** What the action was, when the row named only its route (console and portal forms). */
  action?: string | null;
  /** The resource before the action, when the row could not know it (console and portal forms). */
  before?: string | null;
  after: string | null;
}
