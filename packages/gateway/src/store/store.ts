// The Store speaks domain verbs (STYLE 9). Every verb is one database transaction.
// `http/` and the services talk to this interface only; main.ts and cli/ pick the implementation.

export type TokenSignature = 'any' | 'hmac-sha256' | 'rsa-sha256';
export type CallbackSignature = 'hmac-sha512' | 'rsa-sha256';
export type MerchantStatus = 'active' | 'disabled';

export interface MerchantRecord {
  id: string;
  name: string;
  clientKey: string;
  clientSecret: string;
  /** The secret before the last rotation, accepted until `previousValidUntil`. */
  previousSecret: string | null;
  previousValidUntil: number | null;
  /** Bumped on every rotation; tokens carry it so a rotation can retire them. */
  secretVersion: number;
  partnerId: string;
  publicKeyPem: string | null;
  tokenSignature: TokenSignature;
  callbackSignature: CallbackSignature;
  callbackBaseUrl: string | null;
  qrisCallbackUrl: string | null;
  vaCallbackUrl: string | null;
  merchantName: string;
  merchantCity: string;
  nmid: string;
  mcc: string;
  status: MerchantStatus;
  createdAt: number;
  updatedAt: number;
}

export type MerchantPatch = Partial<
  Pick<
    MerchantRecord,
    | 'name'
    | 'partnerId'
    | 'publicKeyPem'
    | 'tokenSignature'
    | 'callbackSignature'
    | 'callbackBaseUrl'
    | 'qrisCallbackUrl'
    | 'vaCallbackUrl'
    | 'merchantName'
    | 'merchantCity'
    | 'nmid'
    | 'mcc'
    | 'status'
  >
>;

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface PageRequest {
  limit: number;
  cursor?: string | undefined;
}

/** A uniqueness rule the database refused; services turn it into the SNAP or admin error. */
export class UniqueViolation extends Error {
  readonly constraint: string;
  constructor(constraint: string, cause?: unknown) {
    super(`unique violation: ${constraint}`, { cause });
    this.name = 'UniqueViolation';
    this.constraint = constraint;
  }
}

export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  /** Applies pending numbered migrations. */
  migrate(): Promise<void>;
  /** Throws when the database cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;

  /** Returns the stored value, or stores `create()` and returns it; first writer wins. */
  getOrCreateSetting(key: string, create: () => string): Promise<string>;
  getSetting(key: string): Promise<string | undefined>;

  insertMerchant(merchant: MerchantRecord): Promise<void>;
  findMerchantById(id: string): Promise<MerchantRecord | undefined>;
  findMerchantByClientKey(clientKey: string): Promise<MerchantRecord | undefined>;
  listMerchants(page: PageRequest): Promise<Page<MerchantRecord>>;
  countMerchants(): Promise<number>;
  updateMerchant(id: string, patch: MerchantPatch, updatedAt: number): Promise<MerchantRecord | undefined>;
  rotateMerchantSecret(
    id: string,
    rotation: { clientSecret: string; previousValidUntil: number; rotatedAt: number },
  ): Promise<MerchantRecord | undefined>;
}
