import type { AdminScope } from '../records/records.ts';

/**
 * Who asks for an operator action: an operator with an admin key (the admin API, the CLI through
 * it, the console), or a merchant signed in to its portal. The doors say who; the services decide
 * what that caller may reach.
 */
export type Caller =
  | { kind: 'operator'; keyId: string; keyName: string; scope: AdminScope }
  | {
      kind: 'merchant';
      merchantId: string;
      /** The merchant user signed in (docs/merchant-users.md); absent in a portal opened with an operator's link. */
      user?: { id: string; email: string; role: string };
    };

export const operatorCaller = (key: { id: string; name: string; scope: AdminScope }): Caller => ({
  kind: 'operator',
  keyId: key.id,
  keyName: key.name,
  scope: key.scope,
});

export const merchantCaller = (merchantId: string, user?: { id: string; email: string; role: string }): Caller =>
  user
    ? { kind: 'merchant', merchantId, user: { id: user.id, email: user.email, role: user.role } }
    : { kind: 'merchant', merchantId };

/** The merchant a caller is confined to (a merchant sees and acts on its own records only), if any. */
export const ownerOf = (caller: Caller): string | undefined =>
  caller.kind === 'merchant' ? caller.merchantId : undefined;

/**
 * Whether a record of `merchantId` is the caller's to see. A record that is not answers exactly as
 * one that does not exist (not found), so a merchant learns nothing of another's references.
 */
export const reaches = (caller: Caller, merchantId: string): boolean =>
  caller.kind === 'operator' || caller.merchantId === merchantId;

/** How the audit log names a caller. */
export const auditorOf = (caller: Caller): { keyId: string; keyName: string } =>
  caller.kind === 'operator'
    ? { keyId: caller.keyId, keyName: caller.keyName }
    : caller.user
      ? { keyId: `user:${caller.user.id}`, keyName: `merchant user ${caller.user.email} (${caller.user.role})` }
      : { keyId: `portal:${caller.merchantId}`, keyName: 'merchant portal' };
