import type { Clock } from '../clock.ts';
import type { AuditEntry, AuditOutcome, Page, PageRequest, StoredAuditEntry } from '../records/records.ts';
import type { AccessStore } from '../store/store.ts';
import { auditorOf, type Caller } from './caller.ts';

export type { AuditEntry, StoredAuditEntry };

/** What a door tells the audit log of one action; who and when are filled in here. */
export type AuditRecord = Omit<AuditEntry, 'at' | 'keyId' | 'keyName'>;

/** The append-only audit log of operator actions, written by every door alike. */
export function createAuditLog({ store, clock }: { store: AccessStore; clock: Clock }) {
  return {
    /** One action, recorded whole once answered (a refusal before any handler ran, a console action). */
    record: async (caller: Caller, entry: AuditRecord): Promise<void> => {
      await store.appendAudit({ at: clock.now(), ...auditorOf(caller), ...entry });
    },
    /**
     * An action about to run, recorded before it does (no action without its row): who, from where,
     * what, the resource before. Its id, for `finish`.
     */
    begin: (caller: Caller, entry: Omit<AuditRecord, 'httpStatus' | 'after'>): Promise<number> =>
      store.appendAudit({ at: clock.now(), ...auditorOf(caller), ...entry, httpStatus: 0, after: null }),
    /** How an action `begin` recorded ended: the answer's status, its target if new, the resource after. */
    finish: (auditId: number, outcome: Omit<AuditOutcome, 'at'>): Promise<void> =>
      store.appendAuditOutcome(auditId, { at: clock.now(), ...outcome }),
    list: (page: PageRequest, filter: { target?: string } = {}): Promise<Page<StoredAuditEntry>> =>
      store.listAudit(page, filter),
  };
}

export type AuditLog = ReturnType<typeof createAuditLog>;
