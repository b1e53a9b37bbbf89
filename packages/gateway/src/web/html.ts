// Server-rendered HTML: every interpolated value is escaped unless it is already Html.
// Merchant names, payer names and merchants' response bodies are attacker input.

/** Markup that is already safe to send. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** Text as HTML text or a quoted attribute value. */
export const escapeHtml = (value: unknown): string => String(value).replace(/[&<>"'`]/g, (c) => ENTITIES[c] as string);

function render(value: unknown): string {
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(value);
}

/** A template whose values are escaped (arrays are joined, null/undefined/false render nothing). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0] ?? '';
  values.forEach((v, i) => {
    out += render(v) + (strings[i + 1] ?? '');
  });
  return new Html(out);
}

export const join = (parts: readonly Html[]): Html => new Html(parts.map((p) => p.value).join(''));
