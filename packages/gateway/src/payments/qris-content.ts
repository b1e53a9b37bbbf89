import { isMoneyValue } from '@snapgate/snap';

export interface QrisContentInput {
  nmid: string;
  merchantName: string;
  merchantCity: string;
  mcc: string;
  /** SNAP money string, e.g. `"10000.00"`. */
  amount: string;
  referenceNo: string;
  terminalId?: string;
  storeId?: string;
  merchantPan?: string;
  postalCode?: string;
  /** QRIS merchant criteria (`UMI`, `UKE`, `UME`, `UBE`); `UMI` when absent. */
  criteria?: string;
}

export interface ParsedQrisContent {
  referenceNo: string;
  /** Back in SNAP money form, e.g. `"10000.00"`. */
  amount: string;
  nmid: string;
  merchantName: string;
  merchantCity: string;
  tags: Map<string, string>;
}

const GATEWAY_GUID = 'ID.CO.SNAPGATE.WWW';
const QRIS_GUID = 'ID.CO.QRIS.WWW';
// QRIS PANs start with Indonesia's national prefix 9360; 0999 belongs to no real acquirer.
const DEFAULT_PAN_PREFIX = '93600999';
const CRC_TAG_AND_LENGTH = '6304';

// EMVCo MPM: data object values are format "ans", printable ASCII only.
const ANS = /^[\x20-\x7e]*$/;
const QRIS_AMOUNT = /^(0|[1-9]\d*)(\.\d{1,2})?$/;
const QRIS_AMOUNT_MAX_CHARS = 13;
const MAX_PAN_DIGITS = 19;
const MAX_LABEL_CHARS = 25;
const MAX_MERCHANT_NAME_CHARS = 25;
const MAX_MERCHANT_CITY_CHARS = 15;
const MAX_POSTAL_CODE_CHARS = 10;

/**
 * CRC-16/CCITT-FALSE as 4 upper-case hex characters: the checksum EMVCo MPM puts in
 * tag 63 (ISO/IEC 13239, polynomial 0x1021, initial value 0xFFFF).
 */
export function crc16CcittFalse(text: string): string {
  let crc = 0xffff;
  for (const byte of new TextEncoder().encode(text)) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

// EMVCo MPM tag 54 holds at most 13 characters; QRIS writes whole rupiah without a fraction.
function withoutZeroFraction(amount: string): string {
  return amount.endsWith('.00') ? amount.slice(0, -3) : amount;
}

function toQrisAmount(amount: string): string {
  if (!qrisAmountFits(amount)) throw new TypeError(`amount does not fit QRIS tag 54: ${JSON.stringify(amount)}`);
  return withoutZeroFraction(amount);
}

function fromQrisAmount(qrisAmount: string): string | undefined {
  const m = QRIS_AMOUNT.exec(qrisAmount);
  if (!m) return undefined;
  const money = `${m[1]}.${(m[2] ?? '.').slice(1).padEnd(2, '0')}`;
  return isMoneyValue(money) ? money : undefined;
}

/** True when `amount` is a SNAP money string that fits QRIS tag 54. */
export function qrisAmountFits(amount: string): boolean {
  return isMoneyValue(amount) && withoutZeroFraction(amount).length <= QRIS_AMOUNT_MAX_CHARS;
}

function tlv(tag: string, value: string): string {
  if (!ANS.test(value)) throw new TypeError(`tag ${tag}: value is not printable ASCII`);
  if (value.length > 99) throw new TypeError(`tag ${tag}: value longer than 99 characters`);
  return `${tag}${String(value.length).padStart(2, '0')}${value}`;
}

function required(name: string, value: string, maxChars?: number): string {
  if (value.length === 0) throw new TypeError(`${name} is empty`);
  if (maxChars !== undefined && value.length > maxChars) {
    throw new TypeError(`${name} longer than ${maxChars} characters`);
  }
  return value;
}

// EMVCo MPM: a data object is present with a value or not at all, so "" means absent.
function optional(tag: string, name: string, value: string | undefined, maxChars: number): string {
  return value ? tlv(tag, required(name, value, maxChars)) : '';
}

// Checked before cutting, so a non-ASCII tail cannot slip through by being cut off.
function truncated(name: string, value: string, maxChars: number): string {
  if (!ANS.test(value)) throw new TypeError(`${name} is not printable ASCII`);
  return required(name, value).slice(0, maxChars);
}

/** The merchant criteria (sub-tag 03 of tags 26 and 51): UMI unless the merchant says otherwise. */
function criteriaOf(input: QrisContentInput): string {
  const criteria = input.criteria ?? 'UMI';
  if (!/^(UMI|UKE|UME|UBE)$/.test(criteria)) throw new TypeError('criteria must be UMI, UKE, UME or UBE');
  return criteria;
}

function merchantPan(input: QrisContentInput): string {
  const pan = input.merchantPan || `${DEFAULT_PAN_PREFIX}${input.nmid.replace(/\D/g, '')}`.slice(0, MAX_PAN_DIGITS);
  if (!/^\d{1,19}$/.test(pan)) throw new TypeError('merchantPan must be 1 to 19 digits');
  return pan;
}

/**
 * Builds a dynamic QRIS (EMVCo MPM) payload. Throws `TypeError` when a value cannot be
 * encoded; callers validate first (see {@link qrisAmountFits}) and answer a SNAP error.
 */
export function buildQrisContent(input: QrisContentInput): string {
  const nmid = required('nmid', input.nmid);
  if (!/^\d{4}$/.test(input.mcc)) throw new TypeError('mcc must be 4 digits');

  const additionalData = [
    optional('03', 'storeId', input.storeId, MAX_LABEL_CHARS),
    tlv('05', required('referenceNo', input.referenceNo, MAX_LABEL_CHARS)),
    optional('07', 'terminalId', input.terminalId, MAX_LABEL_CHARS),
  ].join('');

  const payload = [
    tlv('00', '01'),
    // EMVCo MPM tag 01: "12" is a dynamic QR, one payment of one amount.
    tlv('01', '12'),
    tlv('26', tlv('00', GATEWAY_GUID) + tlv('01', merchantPan(input)) + tlv('02', nmid) + tlv('03', criteriaOf(input))),
    // QRIS: tag 51 carries the national merchant ID (NMID) under the QRIS GUID.
    tlv('51', tlv('00', QRIS_GUID) + tlv('02', nmid) + tlv('03', criteriaOf(input))),
    tlv('52', input.mcc),
    // ISO 4217 numeric code for IDR.
    tlv('53', '360'),
    tlv('54', toQrisAmount(input.amount)),
    tlv('58', 'ID'),
    tlv('59', truncated('merchantName', input.merchantName, MAX_MERCHANT_NAME_CHARS)),
    tlv('60', truncated('merchantCity', input.merchantCity, MAX_MERCHANT_CITY_CHARS)),
    optional('61', 'postalCode', input.postalCode, MAX_POSTAL_CODE_CHARS),
    tlv('62', additionalData),
  ].join('');

  // EMVCo MPM tag 63: the CRC covers everything before it, including "6304" itself.
  const signed = payload + CRC_TAG_AND_LENGTH;
  return signed + crc16CcittFalse(signed);
}

/**
 * Splits one level of EMVCo TLV (2-digit tag, 2-digit length, value) into a map, in
 * order. Throws `TypeError` on bad framing or a repeated tag.
 */
export function parseEmvTlv(content: string): Map<string, string> {
  const tags = new Map<string, string>();
  let at = 0;
  while (at < content.length) {
    const header = content.slice(at, at + 4);
    if (!/^\d{4}$/.test(header)) throw new TypeError(`bad TLV header at ${at}`);
    const tag = header.slice(0, 2);
    const length = Number(header.slice(2));
    const end = at + 4 + length;
    if (end > content.length) throw new TypeError(`tag ${tag} runs past the end`);
    if (tags.has(tag)) throw new TypeError(`tag ${tag} repeated`);
    tags.set(tag, content.slice(at + 4, end));
    at = end;
  }
  return tags;
}

function parseOrUndefined(content: string): Map<string, string> | undefined {
  try {
    return parseEmvTlv(content);
  } catch {
    return undefined;
  }
}

/**
 * Reads back what {@link buildQrisContent} wrote, for paying by scanning `qrContent`.
 * Returns `undefined` for anything that is not a well-formed dynamic QRIS payload with
 * a valid CRC.
 */
export function parseQrisContent(content: string): ParsedQrisContent | undefined {
  const tags = parseOrUndefined(content);
  if (!tags) return undefined;

  // EMVCo MPM: tag 63 is the last data object.
  const crc = tags.get('63');
  if (crc === undefined || [...tags.keys()].at(-1) !== '63' || !/^[0-9A-Fa-f]{4}$/.test(crc)) return undefined;
  if (crc16CcittFalse(content.slice(0, -4)) !== crc.toUpperCase()) return undefined;

  // Only a dynamic QR names one payment; IDR and Indonesia are all QRIS carries.
  if (tags.get('00') !== '01' || tags.get('01') !== '12') return undefined;
  if (tags.get('53') !== '360' || tags.get('58') !== 'ID' || !/^\d{4}$/.test(tags.get('52') ?? '')) return undefined;

  const qris = parseOrUndefined(tags.get('51') ?? '');
  const additionalData = parseOrUndefined(tags.get('62') ?? '');
  const nmid = qris?.get('02');
  const referenceNo = additionalData?.get('05');
  const amount = fromQrisAmount(tags.get('54') ?? '');
  const merchantName = tags.get('59');
  const merchantCity = tags.get('60');
  if (qris?.get('00') !== QRIS_GUID || !nmid || !referenceNo || !amount || !merchantName || !merchantCity) {
    return undefined;
  }
  return { referenceNo, amount, nmid, merchantName, merchantCity, tags };
}
