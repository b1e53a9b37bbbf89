import { isMoneyValue, type Money, parseSnapTimestamp, snapError, toMinorUnits } from '@snapgate/snap';
import { MAX_AMOUNT, MAX_AMOUNT_SEN } from './money-bounds.ts';

// docs/protocol.md#payment-calls field rules: a missing mandatory field → 400 xx02 {field}; a present field of the
// wrong type, length or format → 400 xx01 {field}. Empty strings count as absent, so optional
// fields may be sent as "" (real clients do).
export interface StrRule {
  required?: boolean;
  max?: number;
  pattern?: RegExp;
  oneOf?: readonly string[];
}

const LATEST_DATE_MS = Date.UTC(9999, 0, 1);
const LIST_ENTRY = /^(.+)\[(\d{1,3})\]$/;
const isAbsent = (v: unknown) => v === undefined || v === null || v === '';

/**
 * Reads fields of a parsed SNAP body, throwing the operation's SNAP error at the first bad one.
 * A class, not an object of closures: under tsx every closure made per request was also renamed
 * (esbuild's keepNames), and a payment call makes several readers.
 */
export class FieldReader {
  constructor(
    private readonly body: Record<string, unknown>,
    private readonly serviceCode: string,
  ) {}

  private missing(field: string) {
    return snapError('INVALID_MANDATORY_FIELD', this.serviceCode, { field });
  }

  private format(field: string) {
    return snapError('INVALID_FIELD_FORMAT', this.serviceCode, { field });
  }

  /** The value at a dotted path; `name[2]` is an entry of a list. */
  private at(path: string): unknown {
    let v: unknown = this.body;
    for (const part of path.split('.')) {
      const entry = LIST_ENTRY.exec(part);
      if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
      v = (v as Record<string, unknown>)[entry ? (entry[1] as string) : part];
      if (entry) v = Array.isArray(v) ? v[Number(entry[2])] : undefined;
    }
    return v;
  }

  str(field: string, rule: StrRule = {}): string | undefined {
    const v = this.at(field);
    if (isAbsent(v)) {
      if (rule.required) throw this.missing(field);
      return undefined;
    }
    if (typeof v !== 'string') throw this.format(field);
    if (rule.max !== undefined && v.length > rule.max) throw this.format(field);
    if (rule.pattern && !rule.pattern.test(v)) throw this.format(field);
    if (rule.oneOf && !rule.oneOf.includes(v)) throw this.format(field);
    return v;
  }

  obj(field: string, required = false): Record<string, unknown> | undefined {
    const v = this.at(field);
    if (isAbsent(v)) {
      if (required) throw this.missing(field);
      return undefined;
    }
    if (typeof v !== 'object' || Array.isArray(v) || v === null) throw this.format(field);
    return v as Record<string, unknown>;
  }

  /** A list of objects (`urlParams`, `payOptionDetails`): how many; read its entries as `name[i].member`. */
  list(field: string, rule: { required?: boolean; max: number }): number {
    const v = this.at(field);
    if (isAbsent(v) || (Array.isArray(v) && v.length === 0)) {
      if (rule.required) throw this.missing(field);
      return 0;
    }
    if (!Array.isArray(v) || v.length > rule.max) throw this.format(field);
    v.forEach((entry, i) => {
      if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw this.format(`${field}[${i}]`);
    });
    return v.length;
  }

  /** A SNAP amount object: `{ value: "10000.00", currency: "IDR" }`. */
  money(field: string, rule: { required?: boolean; positive?: boolean } = {}): Money | undefined {
    const o = this.obj(field, rule.required);
    if (!o) return undefined;
    const value = this.str(`${field}.value`, { required: true });
    if (!isMoneyValue(value)) throw this.format(`${field}.value`);
    const sen = toMinorUnits(value);
    if (rule.positive && sen <= 0n) throw this.format(`${field}.value`);
    this.str(`${field}.currency`, { required: true, oneOf: ['IDR'] });
    if (sen > MAX_AMOUNT_SEN) {
      throw snapError('EXCEEDS_AMOUNT_LIMIT', this.serviceCode, { detail: { field, max: MAX_AMOUNT } });
    }
    return { value, currency: 'IDR' };
  }

  /** An ISO 8601 date-time with a zone; epoch ms. Years past 9998 would not format back as SNAP. */
  dateTime(field: string, rule: { required?: boolean } = {}): number | undefined {
    const v = this.str(field, { required: rule.required, max: 40 });
    if (v === undefined) return undefined;
    const ms = parseSnapTimestamp(v);
    if (ms === undefined || ms >= LATEST_DATE_MS) throw this.format(field);
    return ms;
  }

  /** The same date-time, as it was sent (for an answer that echoes it). */
  dateTimeAsSent(field: string, rule: { required?: boolean } = {}): string | undefined {
    return this.dateTime(field, rule) === undefined ? undefined : (this.at(field) as string);
  }

  /** Optional free-form object carried through untouched (`additionalInfo`). */
  passthrough(field: string): Record<string, unknown> | undefined {
    const o = this.obj(field);
    if (!o) return o;
    // The body's depth is bounded where it is parsed (MAX_JSON_DEPTH), so this cannot overflow.
    if (JSON.stringify(o).length > 4096) throw this.format(field);
    return o;
  }
}

/** A reader of `body` whose errors carry `serviceCode`. */
export function createFieldReader(body: Record<string, unknown>, serviceCode: string): FieldReader {
  return new FieldReader(body, serviceCode);
}
