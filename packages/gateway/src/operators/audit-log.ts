import type { Clock } from '../clock.ts';
import type { AccessStore, AuditEntry, Page, PageRequest, StoredAuditEntry } from '../store/store.ts';
import { auditorOf, type Caller } from './caller.ts';

export type { AuditEntry, StoredAuditEntry };

/** What a door tells the audit log of one action; who and when are filled in here. */
export type AuditRecord = Omit<AuditEntry, 'at' | 'keyId' | 'keyName'>;

/** The append-only audit log of operator actions, written by every door alike. */
export function createAuditLog({ store, clock }: { store: AccessStore; clock: Clock }) {
  return {
    record: (caller: Caller, entry: AuditRecord): Promise<void> =>
      store.appendAudit({ at: clock.now(), ...auditorOf(caller), ...entry }),
    list: (page: PageRequest, filter: { target?: string } = {}): Promise<Page<StoredAuditEntry>> =>
      store.listAudit(page, filter),
  };
}

export type AuditLog = ReturnType<typeof createAuditLog>;
