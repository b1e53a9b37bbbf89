import { z } from 'zod';
import { merchantSettings } from '../merchants/merchant-fields.ts';
import type { MerchantRecord } from '../merchants/merchant-service.ts';
import { rsaPublicKey } from '../merchants/public-key.ts';
import { jakartaTime, rupiah } from '../web/format.ts';
import { type Html, html } from '../web/html.ts';

// The merchant forms (new merchant, a merchant's settings): every setting the admin API takes, by
// its name, grouped. The schemas (merchant-fields.ts) say which settings exist, which ones `null`
// clears and the options of each enumeration; here is only how a form shows them. `fees` and
// `payoutAccount`, objects, are fields named by their path (`fees.qris.percent`,
// `payoutAccount.accountNo`), as the schema's problems name them.

type Setting = keyof typeof merchantSettings.shape;
export const FEE_FIELDS = [
  'fees.qris.percent',
  'fees.qris.fixed',
  'fees.va.fixed',
  'fees.va.percent',
  'fees.disbursement.fixed',
] as const;
type FeeField = (typeof FEE_FIELDS)[number];
export const PAYOUT_ACCOUNT_FIELDS = [
  'payoutAccount.bankCode',
  'payoutAccount.accountNo',
  'payoutAccount.accountName',
] as const;
type PayoutAccountField = (typeof PAYOUT_ACCOUNT_FIELDS)[number];
export const LIMIT_FIELDS = ['limits.disbursementDaily'] as const;
type LimitField = (typeof LIMIT_FIELDS)[number];
/** The part of an object setting a field is. */
type PartField = FeeField | PayoutAccountField | LimitField;
/** A setting the form shows as one field. */
type WholeSetting = Exclude<Setting, 'fees' | 'payoutAccount' | 'limits'>;
/** A field of the form: the name, a setting of the schema, or one part of the fees or of the bank account. */
export type MerchantField = 'name' | WholeSetting | PartField;
const isPart = (f: MerchantField): f is PartField => f.includes('.');

/** What a merchant form shows and sends: every field as text, by its name. */
export type MerchantFormValues = Partial<Record<string, string>>;

export interface Acquirer {
  id: string;
  name: string;
  status: string;
}

interface FieldSpec {
  label: string;
  /** Plain words under the field. */
  help?: string;
  /** What an empty field means (the gateway's default), said on the new form and the settings. */
  unset?: string;
  kind?: 'url' | 'pem' | 'provider' | 'list';
  /** An enumeration's options as shown (the schema lists them; one not named here shows as is). */
  options?: Record<string, string>;
}

/** Every field, once: a setting added to the schema without a line here fails the typecheck. */
const FIELDS: Record<MerchantField, FieldSpec> = {
  name: { label: 'Name', help: 'For operators; at most 100 characters.' },
  partnerId: {
    label: 'Partner id (X-PARTNER-ID)',
    help: '1 to 64 letters, digits, dot, dash or underscore.',
    unset: 'its client key',
  },
  tokenSignature: {
    label: 'Token request signature',
    help: 'How the merchant signs its access-token requests.',
    options: {
      any: 'any: RSA when a key is registered, else HMAC-SHA256',
      'hmac-sha256': 'HMAC-SHA256 (client secret) only',
      'rsa-sha256': 'RSA-SHA256 (its public key) only',
    },
  },
  callbackSignature: {
    label: 'Callback signature',
    help: 'How the gateway signs the callbacks it sends.',
    options: {
      'hmac-sha512': 'HMAC-SHA512 (merchant secret)',
      'rsa-sha256': 'RSA-SHA256 (gateway key)',
      'snap-b2b': 'SNAP B2B token',
    },
  },
  callbackTokenUrl: {
    label: 'Callback token URL',
    kind: 'url',
    help: 'For SNAP B2B token only: where the gateway asks the merchant for a token before it sends a callback.',
    unset: 'the callback base URL + /api/snap/v1.0/access-token/b2b',
  },
  publicKeyPem: {
    label: 'RSA public key (PEM)',
    kind: 'pem',
    help: 'The merchant’s public key, at least 2048 bits, from -----BEGIN PUBLIC KEY----- to -----END PUBLIC KEY-----: it checks RSA-signed token requests. Never paste a private key. Empty: no key.',
    unset: 'none',
  },
  callbackBaseUrl: {
    label: 'Callback base URL',
    kind: 'url',
    help: 'Callbacks go to this URL + /webhook/payment-qr-notification (QRIS) and /webhook/payment-va-notification (VA). https in production mode.',
    unset: 'none',
  },
  qrisCallbackUrl: { label: 'QRIS callback URL', kind: 'url', help: 'Where QRIS callbacks go instead.', unset: 'none' },
  vaCallbackUrl: { label: 'VA callback URL', kind: 'url', help: 'Where VA callbacks go instead.', unset: 'none' },
  transferCallbackUrl: {
    label: 'Transfer callback URL',
    kind: 'url',
    help: 'Where the ends of its disbursements answered pending go, instead of the base URL’s /v1.0/transfer/notify.',
    unset: 'none',
  },
  callbackJson: {
    label: 'Callback JSON',
    options: {
      standard: 'standard',
      php: 'php (json_encode bytes)',
      'php-laravel': 'php-laravel (json_encode, empty strings as null)',
    },
  },
  callbackVaBody: {
    label: 'VA callback body',
    options: { standard: 'standard (as QRIS)', 'snap-payment': 'snap-payment (SNAP VA payment shape)' },
  },
  callbackAck: {
    label: 'Acknowledged by',
    help: 'What answer from the merchant counts as a delivered callback.',
    options: { strict: 'strict (HTTP 200, 2002600)', 'any-200': 'any-200 (HTTP 200, any 200xxxx code)' },
  },
  retrySchedule: {
    label: 'Callback retry schedule',
    help: 'The delays before each attempt, comma-separated, like 0s,5s,30s,2m,1h (s, m, h): the last one is the last retry. Empty: the gateway’s schedule (SNAPGATE_RETRY_SCHEDULE).',
    unset: 'the gateway’s (SNAPGATE_RETRY_SCHEDULE)',
  },
  merchantName: {
    label: 'QRIS merchant name',
    help: 'Printed in its QRIS: at most 25 plain ASCII characters.',
    unset: 'from the name',
  },
  merchantCity: {
    label: 'QRIS merchant city',
    help: 'Printed in its QRIS: at most 15 plain ASCII characters.',
    unset: 'JAKARTA',
  },
  nmid: { label: 'NMID', help: 'The QRIS National Merchant ID: ID and 10 to 13 digits.', unset: 'generated' },
  mcc: { label: 'MCC', help: 'The merchant category code: 4 digits.', unset: '5999' },
  qrisCriteria: {
    label: 'QRIS criteria',
    help: 'Written into its QRIS; Bank Indonesia’s MDR depends on it.',
    options: { UMI: 'UMI (micro)', UKE: 'UKE (small)', UME: 'UME (medium)', UBE: 'UBE (large)' },
  },
  qrisProvider: {
    label: 'QRIS issued by',
    kind: 'provider',
    help: 'An acquirer issues its QRIS; none: snapgate issues them itself.',
    unset: 'snapgate itself',
  },
  checkoutFrameAncestors: {
    label: 'Checkout may be framed by',
    kind: 'list',
    help: 'The merchant’s own https origins that may show its hosted checkout pages in a frame, separated by spaces, like https://shop.example. Empty: no site may frame them.',
    unset: 'none',
  },
  'fees.qris.percent': {
    label: 'QRIS fee, percent',
    help: 'Like 0.70. Both QRIS fields empty: Bank Indonesia’s MDR for its QRIS criteria.',
  },
  'fees.qris.fixed': { label: 'QRIS fee, fixed (Rp)', help: 'Like 500.00, added to the percent; may be empty.' },
  'fees.va.fixed': { label: 'VA fee, fixed (Rp)', help: 'Like 2500.00. Both VA fields empty: VAs are free.' },
  'fees.va.percent': { label: 'VA fee, percent', help: 'Like 0.50, added to the fixed fee; may be empty.' },
  'fees.disbursement.fixed': {
    label: 'Disbursement fee, fixed (Rp)',
    help: 'Like 2500.00, per transfer the merchant sends; returned when the transfer fails. Empty: free.',
  },
  'limits.disbursementDaily': {
    label: 'Disbursements per day (Rp)',
    help: 'The most the merchant’s own transfers may send in a Jakarta day. Empty or 0.00: it may not send any.',
    unset: 'none: disbursements off',
  },
  payoutSchedule: {
    label: 'Payout schedule',
    help: 'When its settlements are paid out to its bank account.',
    options: { manual: 'manual: when an operator says so', auto: 'auto: as soon as a settlement is made' },
  },
  'payoutAccount.bankCode': { label: 'Bank code', help: 'The bank’s code, 3 digits (like 014).' },
  'payoutAccount.accountNo': { label: 'Account number', help: 'Digits only, at most 34.' },
  'payoutAccount.accountName': {
    label: 'Account holder',
    help: 'As the merchant gives it. All three account fields empty: no bank account.',
  },
};

const GROUPS: Array<{ legend: string; fields: MerchantField[]; note?: string }> = [
  { legend: 'Identity', fields: ['name', 'partnerId'] },
  {
    legend: 'Token & signatures',
    fields: ['tokenSignature', 'callbackSignature', 'callbackTokenUrl', 'publicKeyPem'],
  },
  {
    legend: 'Callbacks',
    fields: [
      'callbackBaseUrl',
      'qrisCallbackUrl',
      'vaCallbackUrl',
      'transferCallbackUrl',
      'callbackJson',
      'callbackVaBody',
    ],
  },
  { legend: 'QRIS', fields: ['merchantName', 'merchantCity', 'nmid', 'mcc', 'qrisCriteria', 'qrisProvider'] },
  { legend: 'Checkout', fields: ['checkoutFrameAncestors'] },
  {
    legend: 'Fees',
    fields: [...FEE_FIELDS],
    note: 'Charged per paid transaction, rounded half up to the whole rupiah and never more than the amount. A change applies to transactions created after it.',
  },
  { legend: 'Delivery', fields: ['retrySchedule', 'callbackAck'] },
  {
    legend: 'Payouts',
    fields: ['payoutSchedule', ...PAYOUT_ACCOUNT_FIELDS, ...LIMIT_FIELDS],
    note: 'Saving a bank account asks the payout bank who holds it: an account the bank refuses is not saved, and the one before stays.',
  },
];

/** Every field of the forms, in their order. */
export const MERCHANT_FORM_FIELDS: readonly MerchantField[] = GROUPS.flatMap((g) => g.fields);

const settingOf = (f: MerchantField) => (f === 'name' || isPart(f) ? undefined : merchantSettings.shape[f]);
const optionsOf = (f: MerchantField): readonly string[] | undefined => {
  const s = settingOf(f);
  return s instanceof z.ZodEnum ? (s.options as readonly string[]) : undefined;
};
/** Whether `null` clears the setting (an empty field then sends null). */
const isClearable = (f: Exclude<MerchantField, PartField>) => settingOf(f)?.safeParse(null).success ?? false;

/** A field's text as the form compares and sends it: trimmed; a PEM with plain line ends. */
function textOf(f: MerchantField, value: string | undefined): string {
  const v = (value ?? '').trim();
  return f === 'publicKeyPem' ? v.replace(/\r\n?/g, '\n') : v;
}

/** A field's value as the admin API takes it (a PEM ends with its line end; a list is its words). */
const sentValue = (f: MerchantField, text: string): unknown =>
  f === 'publicKeyPem' ? `${text}\n` : FIELDS[f].kind === 'list' ? text.split(/[\s,]+/).filter(Boolean) : text;

/** A setting's value as a form's text (a list: its items separated by spaces). */
const textValue = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : Array.isArray(v) ? v.join(' ') : undefined;

/** What the form shows for a merchant's settings. */
export function shownValues(m: MerchantRecord): MerchantFormValues {
  const out: MerchantFormValues = {};
  for (const f of MERCHANT_FORM_FIELDS) {
    if (isPart(f)) continue;
    out[f] = textOf(f, textValue(m[f as Exclude<MerchantField, PartField>]));
  }
  out.payoutSchedule = m.payoutSchedule ?? 'manual';
  out['payoutAccount.bankCode'] = m.payoutAccount?.bankCode ?? '';
  out['payoutAccount.accountNo'] = m.payoutAccount?.accountNo ?? '';
  out['payoutAccount.accountName'] = m.payoutAccount?.accountName ?? '';
  const qris = m.fees?.qris;
  if (qris && 'percent' in qris) {
    out['fees.qris.percent'] = qris.percent;
    out['fees.qris.fixed'] = qris.fixed ?? '';
  }
  out['fees.va.fixed'] = m.fees?.va?.fixed ?? '';
  out['fees.va.percent'] = m.fees?.va?.percent ?? '';
  out['fees.disbursement.fixed'] = m.fees?.disbursement?.fixed ?? '';
  out['limits.disbursementDaily'] = m.limits?.disbursementDaily ?? '';
  return out;
}

/** The fees the four fee fields make (`null`: all empty, the defaults); the schema judges them. */
function feesOf(fields: MerchantFormValues): Record<string, Record<string, string>> | null {
  const part = (entries: Array<[string, FeeField]>) => {
    const out: Record<string, string> = {};
    for (const [key, f] of entries) if (textOf(f, fields[f])) out[key] = textOf(f, fields[f]);
    return Object.keys(out).length > 0 ? out : undefined;
  };
  const qris = part([
    ['percent', 'fees.qris.percent'],
    ['fixed', 'fees.qris.fixed'],
  ]);
  const va = part([
    ['fixed', 'fees.va.fixed'],
    ['percent', 'fees.va.percent'],
  ]);
  const disbursement = part([['fixed', 'fees.disbursement.fixed']]);
  if (!qris && !va && !disbursement) return null;
  return { ...(qris && { qris }), ...(va && { va }), ...(disbursement && { disbursement }) };
}

/** The limits the limit field makes (`null`: empty, the defaults); the schema judges them. */
function limitsOf(fields: MerchantFormValues): Record<string, string> | null {
  const daily = textOf('limits.disbursementDaily', fields['limits.disbursementDaily']);
  return daily ? { disbursementDaily: daily } : null;
}

/** The bank account the three account fields make (`null`: all empty, none); the schema judges it. */
function payoutAccountOf(fields: MerchantFormValues): Record<string, string> | null {
  const [bankCode, accountNo, accountName] = PAYOUT_ACCOUNT_FIELDS.map((f) => textOf(f, fields[f]));
  return bankCode || accountNo || accountName
    ? { bankCode: bankCode ?? '', accountNo: accountNo ?? '', accountName: accountName ?? '' }
    : null;
}

/** The new-merchant form as the create body: an empty field is left out (the gateway's default). */
export function createInput(fields: MerchantFormValues): Record<string, unknown> {
  const input: Record<string, unknown> = { name: textOf('name', fields.name) };
  for (const f of MERCHANT_FORM_FIELDS) {
    if (f === 'name' || isPart(f)) continue;
    const text = textOf(f, fields[f]);
    if (text !== '') input[f] = sentValue(f, text);
  }
  const fees = feesOf(fields);
  if (fees) input.fees = fees;
  const payoutAccount = payoutAccountOf(fields);
  if (payoutAccount) input.payoutAccount = payoutAccount;
  const limits = limitsOf(fields);
  if (limits) input.limits = limits;
  return input;
}

/**
 * The edit form as a patch: only what differs from the merchant's settings, so a setting left as it
 * was is not sent again (a generated NMID stays generated). An emptied field clears its setting
 * (`null`) where the schema allows; elsewhere it is sent empty, and the schema says why not.
 */
export function patchInput(m: MerchantRecord, fields: MerchantFormValues): Record<string, unknown> {
  const shown = shownValues(m);
  const patch: Record<string, unknown> = {};
  for (const f of MERCHANT_FORM_FIELDS) {
    if (isPart(f) || !(f in fields)) continue;
    const text = textOf(f, fields[f]);
    if (text === textOf(f, shown[f])) continue;
    patch[f] = text === '' ? (isClearable(f) ? null : '') : sentValue(f, text);
  }
  const isChanged = (parts: readonly PartField[]) =>
    parts.some((f) => f in fields && textOf(f, fields[f]) !== textOf(f, shown[f]));
  if (isChanged(FEE_FIELDS)) patch.fees = feesOf({ ...shown, ...fields });
  // A bank account is verified again only when one of its fields changed.
  if (isChanged(PAYOUT_ACCOUNT_FIELDS)) patch.payoutAccount = payoutAccountOf({ ...shown, ...fields });
  if (isChanged(LIMIT_FIELDS)) patch.limits = limitsOf({ ...shown, ...fields });
  return patch;
}

type Issue = { path: PropertyKey[]; message: string; code?: string; errors?: Issue[][] };

/**
 * A schema's problems as the form lists them, `field: why`. Of a union (QRIS fees: the rule or a
 * percent), the option that came closest; a missing part is "required".
 */
export function problemsOf(issues: readonly Issue[], prefix: PropertyKey[] = []): string[] {
  return issues.flatMap((i) => {
    const path = [...prefix, ...i.path];
    if (i.code === 'invalid_union' && i.errors && i.errors.length > 0) {
      const closest = i.errors.reduce((a, b) => (b.length < a.length ? b : a));
      return problemsOf(closest, path);
    }
    const why = /received undefined$/.test(i.message) ? 'required' : i.message;
    return [path.length > 0 ? `${path.join('.')}: ${why}` : why];
  });
}

/** The fields a problem names (`field: why`), to mark them. */
export const invalidFields = (problems: readonly string[]) =>
  new Set(problems.map((p) => /^([A-Za-z.]+):/.exec(p)?.[1] ?? ''));

export interface MerchantFormOptions {
  values: MerchantFormValues;
  /** The acquirers that may issue a merchant's QRIS. */
  acquirers: readonly Acquirer[];
  /** The new-merchant form: an empty field is the gateway's default, said in its placeholder. */
  isNew: boolean;
  /** The fields a refused form got wrong. */
  invalid?: ReadonlySet<string>;
}

const option = (value: string, current: string | undefined, label: string) =>
  html`<option value="${value}"${value === current ? html` selected` : ''}>${label}</option>`;

function control(f: MerchantField, o: MerchantFormOptions): Html {
  const spec = FIELDS[f];
  const value = o.values[f] ?? '';
  const hint = spec.help ? `hint-${f}` : undefined;
  const aria = html`${hint ? html` aria-describedby="${hint}"` : ''}${o.invalid?.has(f) ? html` aria-invalid="true"` : ''}`;
  const enumOptions = optionsOf(f);
  if (enumOptions) {
    return html`<select name="${f}"${aria}>${enumOptions.map((v) => option(v, value, spec.options?.[v] ?? v))}</select>`;
  }
  if (spec.kind === 'provider') {
    const known = o.acquirers.some((a) => a.id === value);
    return html`<select name="${f}"${aria}>${option('', value, 'None: snapgate issues them itself')}${o.acquirers.map(
      (a) => option(a.id, value, `${a.name}${a.status === 'active' ? '' : ` (${a.status})`}`),
    )}${value && !known ? option(value, value, `${value} (not a known acquirer)`) : ''}</select>`;
  }
  if (spec.kind === 'pem') {
    return html`<textarea name="${f}" class="report" rows="7" spellcheck="false" autocomplete="off" placeholder="-----BEGIN PUBLIC KEY-----"${aria}>${value}</textarea>`;
  }
  const placeholder = o.isNew && spec.unset && spec.unset !== 'none' ? `empty: ${spec.unset}` : '';
  return html`<input name="${f}"${spec.kind === 'url' ? html` type="url"` : ''}${f === 'name' ? html` required maxlength="100" class="wide"` : ''} value="${value}"${placeholder ? html` placeholder="${placeholder}"` : ''}${aria}>`;
}

function labelled(f: MerchantField, o: MerchantFormOptions): Html {
  const spec = FIELDS[f];
  return html`<label>${spec.label}${control(f, o)}${spec.help ? html`<span class="muted hint" id="hint-${f}">${spec.help}</span>` : ''}</label>`;
}

/** Every field of the merchant forms, in their groups. */
export function merchantFields(o: MerchantFormOptions): Html {
  return html`${GROUPS.map((g) => {
    const wide = g.fields.filter((f) => FIELDS[f].kind === 'pem');
    const grid = g.fields.filter((f) => !wide.includes(f));
    return html`<fieldset class="group"><legend>${g.legend}</legend>${g.note ? html`<p class="muted">${g.note}</p>` : ''}
<div class="form-grid">${grid.map((f) => labelled(f, o))}</div>${wide.map((f) => labelled(f, o))}</fieldset>`;
  })}`;
}

const dash = (spec: FieldSpec) =>
  html`<span class="muted">—${spec.unset && spec.unset !== 'none' ? ` (${spec.unset})` : ''}</span>`;

function feeText(m: MerchantRecord): { qris: string; va: string; disbursement: string } {
  const q = m.fees?.qris;
  const va = m.fees?.va;
  const percentAnd = (percent: string, fixed: string | undefined) =>
    `${percent}%${fixed && fixed !== '0.00' ? ` + ${rupiah(fixed)}` : ''}`;
  return {
    qris:
      q && 'percent' in q
        ? percentAnd(q.percent, q.fixed)
        : `Bank Indonesia’s MDR for ${m.qrisCriteria}${q ? '' : ' (default)'}`,
    va: va ? `${rupiah(va.fixed)}${va.percent && va.percent !== '0.00' ? ` + ${va.percent}%` : ''}` : 'free (default)',
    disbursement: m.fees?.disbursement ? rupiah(m.fees.disbursement.fixed) : 'free (default)',
  };
}

function publicKeyText(pem: string): Html {
  let bits = '';
  try {
    bits = `RSA, ${rsaPublicKey(pem).asymmetricKeyDetails?.modulusLength ?? '?'} bits`;
  } catch {
    bits = 'not readable as an RSA key';
  }
  return html`<details><summary>${bits}</summary><pre>${pem}</pre></details>`;
}

/** A setting as the merchant's page shows it (never a secret: a merchant record's are not settings). */
function shownSetting(m: MerchantRecord, f: MerchantField, acquirers: readonly Acquirer[]): Html | string {
  const spec = FIELDS[f];
  if (f === 'publicKeyPem') return m.publicKeyPem ? publicKeyText(m.publicKeyPem) : dash(spec);
  if (f === 'qrisProvider') {
    if (!m.qrisProvider) return dash(spec);
    const a = acquirers.find((x) => x.id === m.qrisProvider);
    return a ? html`<a href="/console/providers/${encodeURIComponent(a.id)}">${a.name}</a>` : m.qrisProvider;
  }
  const v =
    f === 'payoutSchedule' ? (m.payoutSchedule ?? 'manual') : textValue(m[f as Exclude<MerchantField, PartField>]);
  if (v === undefined || v === '') return dash(spec);
  return optionsOf(f) ? (spec.options?.[v] ?? v) : v;
}

/** The bank account and what the payout bank answered about it, or a dash. */
function payoutAccountText(m: MerchantRecord): Html {
  const a = m.payoutAccount;
  if (!a) return html`<dt>Bank account</dt><dd id="payout-account"><span class="muted">— (none)</span></dd>`;
  return html`<dt>Bank account</dt><dd id="payout-account">${a.accountNo} at bank ${a.bankCode}, ${a.accountName}</dd>
<dt>Verified</dt><dd id="payout-account-verified">${a.verifiedName} <span class="muted">(the payout bank’s answer, ${jakartaTime(a.verifiedAt)})</span></dd>`;
}

/** A merchant's settings, by group, as they are now: in two columns, the QRIS and money on the right. */
export function settingsSummary(m: MerchantRecord, acquirers: readonly Acquirer[]): Html {
  const fees = feeText(m);
  const shown = (fields: readonly MerchantField[]) =>
    fields.map((f) => html`<dt>${FIELDS[f].label}</dt><dd data-setting="${f}">${shownSetting(m, f, acquirers)}</dd>`);
  const group = (g: (typeof GROUPS)[number]) =>
    html`<h3>${g.legend}</h3><dl class="kv">${
      g.legend === 'Fees'
        ? html`<dt>QRIS</dt><dd id="fee-qris">${fees.qris}</dd><dt>VA</dt><dd id="fee-va">${fees.va}</dd><dt>Disbursement</dt><dd id="fee-disbursement">${fees.disbursement}</dd>`
        : g.legend === 'Payouts'
          ? html`${shown(g.fields.filter((f) => !isPart(f)))}${payoutAccountText(m)}<dt>Disbursements per day</dt><dd id="disbursement-daily">${
              m.limits?.disbursementDaily && m.limits.disbursementDaily !== '0.00'
                ? rupiah(m.limits.disbursementDaily)
                : html`<span class="muted">— (off)</span>`
            }</dd>`
          : shown(g.fields)
    }</dl>`;
  const right = ['QRIS', 'Fees', 'Delivery', 'Payouts'];
  return html`<section class="card" id="settings"><h2>Settings</h2><div class="grid">
<div>${GROUPS.filter((g) => !right.includes(g.legend)).map(group)}</div>
<div>${GROUPS.filter((g) => right.includes(g.legend)).map(group)}</div></div></section>`;
}
