import type { ProviderRecord, ProviderService } from '../../providers/provider-service.ts';
import { asConsoleError } from '../kit.ts';

// A provider form, read into the admin API's very body (POST /admin/v1/providers, PATCH
// /admin/v1/providers/:id), which the route's own schema then judges: a form field is named as the
// API names it, `outbound.baseUrl` for the nested one. Nothing here is a rule of its own, only how
// an HTML form says "absent", "no" and "keep".

/** The API's outbound settings, as the forms name them (`outbound.<field>`). */
export const OUTBOUND_FIELDS = [
  'baseUrl',
  'clientKey',
  'clientSecret',
  'privateKeyPem',
  'partnerId',
  'channelId',
  'tokenPath',
  'pathPrefix',
] as const;

const filled = (v: string | undefined): v is string => v !== undefined && v.trim() !== '';
/** A PEM as pasted, its line ends as the key was written (a browser sends a textarea's as CRLF). */
const pem = (v: string) => v.replace(/\r\n?/g, '\n');
/** A yes/no select: anything else is passed on, for the schema to refuse. */
const yesNo = (v: string) => (v === 'true' ? true : v === 'false' ? false : v);

/** The outbound fields typed: empty ones absent (the API's defaults apply), text trimmed, PEM as pasted. */
function typedOutbound(fields: Record<string, string>): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const f of OUTBOUND_FIELDS) {
    const v = fields[`outbound.${f}`];
    if (filled(v)) out[f] = f === 'privateKeyPem' ? pem(v) : v.trim();
  }
  return out;
}

/** The body of `POST /admin/v1/providers` a new provider form stands for. */
export function createBody(fields: Record<string, string>): Record<string, unknown> {
  const body: Record<string, unknown> = { name: fields.name, kind: fields.kind };
  // A bank and an acquirer have a bank code, an e-wallet a payOption: an empty one is absent.
  if (filled(fields.bankCode)) body.bankCode = fields.bankCode.trim();
  if (filled(fields.payOption)) body.payOption = fields.payOption.trim();
  if (filled(fields.publicKeyPem)) body.publicKeyPem = pem(fields.publicKeyPem);
  if (filled(fields.acquiresGatewayQris)) body.acquiresGatewayQris = yesNo(fields.acquiresGatewayQris);
  const outbound = typedOutbound(fields);
  if (Object.keys(outbound).length > 0) body.outbound = outbound;
  return body;
}

/**
 * The body of `PATCH /admin/v1/providers/:id` an edit form stands for. An emptied public key is
 * removed (null). The outbound settings are replaced as a whole, as the API does; their secrets are
 * never shown, so an empty client secret or private key keeps the one set, unless `clearPrivateKey`
 * removes the key or `clearOutbound` all of the outbound settings.
 */
export function patchBody(fields: Record<string, string>, p: ProviderRecord): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if ('name' in fields) body.name = fields.name;
  if ('bankCode' in fields) body.bankCode = fields.bankCode?.trim();
  if ('publicKeyPem' in fields) body.publicKeyPem = filled(fields.publicKeyPem) ? pem(fields.publicKeyPem) : null;
  if (filled(fields.acquiresGatewayQris)) body.acquiresGatewayQris = yesNo(fields.acquiresGatewayQris);
  if (fields.clearOutbound === 'yes') {
    body.outbound = null;
    return body;
  }
  const outbound = typedOutbound(fields);
  if (p.outbound === null && Object.keys(outbound).length === 0) return body;
  if (p.outbound && !('clientSecret' in outbound)) outbound.clientSecret = p.outbound.clientSecret;
  if (fields.clearPrivateKey === 'yes') outbound.privateKeyPem = null;
  else if (p.outbound?.privateKeyPem && !('privateKeyPem' in outbound))
    outbound.privateKeyPem = p.outbound.privateKeyPem;
  body.outbound = outbound;
  return body;
}

/** The forms' words for the API's fields. */
const LABELS: Record<string, string> = {
  name: 'Name',
  kind: 'Kind',
  bankCode: 'Bank code',
  payOption: 'Wallet (payOption)',
  publicKeyPem: 'Public key',
  acquiresGatewayQris: 'Acquires snapgate’s own QRIS',
  status: 'Status',
  outbound: 'Outbound settings',
  'outbound.baseUrl': 'Outbound base URL',
  'outbound.clientKey': 'Outbound client key',
  'outbound.clientSecret': 'Outbound client secret',
  'outbound.privateKeyPem': 'Outbound private key',
  'outbound.partnerId': 'Outbound partner id',
  'outbound.channelId': 'Outbound channel id',
  'outbound.tokenPath': 'Outbound token path',
  'outbound.pathPrefix': 'Outbound path prefix',
};

/** `bankCode: must be 3 digits` (the API's words) as the form says it: `Bank code: must be 3 digits`. */
export function labelled(problem: string): string {
  const at = problem.indexOf(': ');
  const label = at > 0 ? LABELS[problem.slice(0, at)] : undefined;
  return label ? `${label}: ${problem.slice(at + 2)}` : problem;
}

const FIELD_OF = new Map(Object.entries(LABELS).map(([field, label]) => [label, field]));

/** The fields these problems (as `labelled` says them) are about. */
export function invalidOf(problems: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const p of problems) {
    const field = FIELD_OF.get(p.slice(0, Math.max(0, p.indexOf(': '))));
    if (field) out.add(field);
  }
  return out;
}

interface Issue {
  path: PropertyKey[];
  message: string;
  code?: string;
  minimum?: unknown;
  maximum?: unknown;
  origin?: string;
  expected?: string;
  values?: unknown[];
}

/** The schema's issues in plain words, each named by its field's label. */
export function problemsOf(issues: ReadonlyArray<Issue>): string[] {
  return issues.map((i) => labelled(`${i.path.map(String).join('.')}: ${plain(i)}`));
}

function plain(i: Issue): string {
  if (i.code === 'invalid_type' && i.message.endsWith('received undefined')) return 'is required';
  if (i.code === 'too_small' && i.origin === 'string' && i.minimum === 1) return 'is required';
  if (i.code === 'too_big' && i.origin === 'string') return `must be at most ${String(i.maximum)} characters`;
  if (i.code === 'invalid_value' && i.values) return `must be one of: ${i.values.map(String).join(', ')}`;
  if (i.code === 'invalid_type' && i.expected === 'boolean') return 'must be yes or no';
  return i.message;
}

/** What a form is about, to name what it clashes with. */
export interface Wanted {
  id?: string;
  kind: string;
  bankCode?: string | undefined;
}

/**
 * Why the service refused a form, as the form shows it again: its problems (400), or what clashes
 * (409), named in plain words: the active bank that has the bank code, the acquirer that already
 * acquires snapgate's own QRIS. Anything else is no form problem and is thrown on.
 */
export async function serviceRefusal(
  e: unknown,
  providers: ProviderService,
  wanted: Wanted,
): Promise<{ status: 400 | 409; problems: string[] }> {
  const r = asConsoleError(e);
  if (!r || (r.status !== 400 && r.status !== 409)) throw e;
  if (r.status === 400) return { status: 400, problems: (r.problems.length ? r.problems : [r.message]).map(labelled) };
  const others = (await providers.list({ limit: 500 })).items.filter((p) => p.id !== wanted.id);
  if (/acquires the QRIS snapgate issues itself/.test(r.message)) {
    const holder = others.find((p) => p.acquiresGatewayQris);
    if (holder) {
      return {
        status: 409,
        problems: [
          `Acquires snapgate’s own QRIS: the acquirer “${holder.name}” (${holder.id}) already does, and only one acquirer can. Set it to No on that acquirer’s page first, or choose No here.`,
        ],
      };
    }
  }
  if (/bankCode|duplicate/.test(r.message)) {
    const holder = others.find(
      (p) => p.kind === 'bank' && !p.isSandbox && p.status === 'active' && p.bankCode === wanted.bankCode,
    );
    return {
      status: 409,
      problems: [
        `Bank code: ${wanted.bankCode} already belongs to the active bank ${holder ? `“${holder.name}” (${holder.id})` : 'registered just now'}: one active bank per code owns its virtual accounts. Choose another code, or disable that bank first.`,
      ],
    };
  }
  return { status: 409, problems: [r.message] };
}
