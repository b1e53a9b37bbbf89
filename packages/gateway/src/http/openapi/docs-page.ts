import { escapeHtml } from '../../web/html.ts';
import {
  HTTP_METHODS,
  type JsonSchema,
  type MediaType,
  type OpenApiDocument,
  type Operation,
  type Parameter,
  type Reference,
  type Response,
} from './kit.ts';

// GET /docs: one self-contained HTML page rendered on the server from the two OpenAPI documents.
// No script, no external asset: it reads the documents, so it says what they say.

export interface DocumentLink {
  /** Where the JSON document is served. */
  href: string;
  /** Anchor prefix for this document's sections. */
  slug: string;
  document: OpenApiDocument;
}

const html = escapeHtml;

/** The small markdown the documents use: paragraphs, `code`, **bold**. */
function prose(text: string | undefined): string {
  if (!text) return '';
  return text
    .split(/\n{2,}/)
    .map(
      (p) =>
        `<p>${html(p)
          .replace(/`([^`]+)`/g, '<code>$1</code>')
          .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')}</p>`,
    )
    .join('');
}

const inline = (text: string | undefined) => (text ? prose(text).replace(/^<p>|<\/p>$/g, '') : '');
const slugOf = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-');
const isRef = (v: unknown): v is Reference => typeof v === 'object' && v !== null && '$ref' in v;
const refName = (ref: string) => ref.slice(ref.lastIndexOf('/') + 1);

class Renderer {
  constructor(private readonly link: DocumentLink) {}

  private schemaAnchor(name: string) {
    return `${this.link.slug}-schema-${slugOf(name)}`;
  }

  /** A one-line type: `string ≤ 64`, `Amount` (linked), `object`, `"C" | "O"`, `… | null`. */
  typeOf(schema: JsonSchema | undefined): string {
    if (!schema) return 'any';
    const parts: string[] = [];
    if (typeof schema.$ref === 'string') {
      const name = refName(schema.$ref);
      parts.push(`<a href="#${this.schemaAnchor(name)}">${html(name)}</a>`);
    }
    if (schema.const !== undefined) parts.push(`<code>${html(JSON.stringify(schema.const))}</code>`);
    else if (Array.isArray(schema.enum))
      parts.push(schema.enum.map((v) => `<code>${html(JSON.stringify(v))}</code>`).join(' | '));
    else if (schema.type !== undefined) {
      const types = Array.isArray(schema.type) ? schema.type.join(' | ') : String(schema.type);
      const items = schema.type === 'array' && schema.items ? ` of ${this.typeOf(schema.items as JsonSchema)}` : '';
      parts.push(`${html(types)}${items}`);
    }
    for (const key of ['anyOf', 'oneOf'] as const) {
      const list = schema[key] as JsonSchema[] | undefined;
      if (list?.every((s) => s.required === undefined && s.maxProperties === undefined)) {
        parts.push(list.map((s) => this.typeOf(s)).join(' | '));
      }
    }
    return parts.join(' ') || 'any';
  }

  /** Constraints worth reading: lengths, patterns, ranges, defaults, formats. */
  private constraints(schema: JsonSchema): string {
    const c: string[] = [];
    if (schema.format) c.push(`format ${html(String(schema.format))}`);
    if (schema.minLength !== undefined && schema.maxLength !== undefined)
      c.push(`length ${schema.minLength}–${schema.maxLength}`);
    else if (schema.maxLength !== undefined) c.push(`length ≤ ${schema.maxLength}`);
    else if (schema.minLength !== undefined) c.push(`length ≥ ${schema.minLength}`);
    if (schema.minimum !== undefined) c.push(`≥ ${schema.minimum}`);
    if (schema.maximum !== undefined) c.push(`≤ ${schema.maximum}`);
    if (schema.maxItems !== undefined) c.push(`at most ${schema.maxItems} items`);
    if (schema.pattern !== undefined) c.push(`pattern <code>${html(String(schema.pattern))}</code>`);
    if (schema.default !== undefined) c.push(`default <code>${html(JSON.stringify(schema.default))}</code>`);
    if (schema.additionalProperties === false) c.push('no other members');
    return c.join(', ');
  }

  /** A schema as a table of its members, nested objects indented; `$ref`s link to the schema list. */
  schema(schema: JsonSchema | undefined, depth = 0): string {
    if (!schema) return '';
    const properties = schema.properties as Record<string, JsonSchema> | undefined;
    const notes: string[] = [];
    if (depth === 0) {
      const head = this.typeOf(schema);
      const constraints = this.constraints(schema);
      notes.push(`<div class="type">${head}${constraints ? ` <span class="c">(${constraints})</span>` : ''}</div>`);
      if (schema.description && !schema.$ref) notes.push(`<div class="d">${inline(String(schema.description))}</div>`);
    }
    const alternatives = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
    if (alternatives?.some((s) => s.required !== undefined)) {
      notes.push(
        `<div class="d">One of: ${alternatives
          .map((s) =>
            s.required ? (s.required as string[]).map((r) => `<code>${html(r)}</code>`).join(' + ') : 'empty',
          )
          .join('; ')}.</div>`,
      );
    }
    if (schema.if && schema.else) {
      const cond = (schema.if as JsonSchema).properties as Record<string, JsonSchema>;
      const [field, rule] = Object.entries(cond)[0] ?? [];
      const needs = ((schema.else as JsonSchema).required as string[] | undefined) ?? [];
      if (field && rule)
        notes.push(
          `<div class="d">Unless <code>${html(field)}</code> is <code>${html(JSON.stringify(rule.const))}</code>: ${needs.map((n) => `<code>${html(n)}</code>`).join(', ')} required.</div>`,
        );
    }
    if (!properties) return notes.join('');
    const required = new Set((schema.required as string[] | undefined) ?? []);
    const rows = Object.entries(properties)
      .map(([name, s]) => {
        const constraints = this.constraints(s);
        const nested = s.properties && depth < 3 ? `<div class="nested">${this.schema(s, depth + 1)}</div>` : '';
        const alt = ((s.anyOf ?? s.oneOf) as JsonSchema[] | undefined)?.find((x) => x.properties);
        const nestedAlt = !nested && alt && depth < 3 ? `<div class="nested">${this.schema(alt, depth + 1)}</div>` : '';
        return `<tr><td><code>${html(name)}</code>${required.has(name) ? ' <span class="req">required</span>' : ''}</td><td>${this.typeOf(s)}${constraints ? `<div class="c">${constraints}</div>` : ''}</td><td>${inline(s.description as string | undefined)}${nested}${nestedAlt}</td></tr>`;
      })
      .join('');
    return `${notes.join('')}<table class="props"><thead><tr><th>Member</th><th>Type</th><th>Description</th></tr></thead><tbody>${rows}</tbody></table>`;
  }

  private parameter(p: Parameter | Reference): Parameter {
    if (!isRef(p)) return p;
    const found = this.link.document.components.parameters?.[refName(p.$ref)];
    if (!found) throw new TypeError(`unresolved parameter ${p.$ref}`);
    return found;
  }

  private examples(media: MediaType): string {
    return Object.entries(media.examples ?? {})
      .map(
        ([name, e]) =>
          `<details><summary>Example${name === 'example' ? '' : ` ${html(e.summary ? `${name}: ${e.summary}` : name)}`}</summary><pre>${html(
            typeof e.value === 'string' ? e.value : JSON.stringify(e.value, null, 2),
          )}</pre></details>`,
      )
      .join('');
  }

  private resolve(schema: JsonSchema): { name: string; schema: JsonSchema } | undefined {
    if (typeof schema.$ref !== 'string') return undefined;
    const name = refName(schema.$ref);
    const found = this.link.document.components.schemas[name];
    return found ? { name, schema: found } : undefined;
  }

  /**
   * A body: request bodies and successes show their members (one `$ref` resolved) and their
   * examples; errors are one line each (their codes are in the description).
   */
  private content(content: Record<string, MediaType> | undefined, expand: boolean): string {
    if (!content) return '';
    return Object.entries(content)
      .map(([type, media]) => {
        const target = this.resolve(media.schema);
        let body: string;
        if (!expand) body = ` ${this.typeOf(media.schema)}`;
        else if (target && Object.keys(media.schema).every((k) => k === '$ref' || k === 'description')) {
          const about = target.schema.description as string | undefined;
          body = `${this.schema(media.schema)}${about ? `<div class="d">${inline(about)}</div>` : ''}${this.schema(target.schema, 1)}`;
        } else body = this.schema(media.schema);
        return `<div class="media"><code>${html(type)}</code>${body}${expand ? this.examples(media) : ''}</div>`;
      })
      .join('');
  }

  private security(op: Operation): string {
    const requirements = op.security ?? this.link.document.security;
    if (requirements.length === 0 || requirements.every((r) => Object.keys(r).length === 0)) {
      return '<p class="sec">No authentication.</p>';
    }
    const schemes = this.link.document.components.securitySchemes;
    const list = requirements
      .map((r) =>
        Object.keys(r)
          .map((name) => {
            const s = schemes[name];
            const what = s?.type === 'http' ? `Authorization: Bearer` : `${s?.name ?? ''} header`;
            const roles = r[name]?.length ? `, scope <code>${html(r[name].join(', '))}</code>` : '';
            return `<a href="#${this.link.slug}-security-${slugOf(name)}">${html(name)}</a> (${html(what)}${roles})`;
          })
          .join(' and '),
      )
      .join(', or ');
    return `<p class="sec">Authentication: ${list}.</p>`;
  }

  private responses(responses: Record<string, Response>): string {
    return Object.entries(responses)
      .map(([status, r]) => {
        const headers = r.headers
          ? `<div class="d">Headers: ${Object.entries(r.headers)
              .map(([h, v]) => `<code>${html(h)}</code> ${this.typeOf(v.schema)}`)
              .join(', ')}</div>`
          : '';
        return `<div class="response"><div class="status s${status[0]}">${html(status)}</div><div class="rbody">${inline(r.description)}${headers}${this.content(r.content, status.startsWith('2'))}</div></div>`;
      })
      .join('');
  }

  operation(method: string, path: string, op: Operation, id: string): string {
    const params = (op.parameters ?? []).map((p) => this.parameter(p));
    const paramTable =
      params.length === 0
        ? ''
        : `<h4>Parameters</h4><table class="props"><thead><tr><th>Name</th><th>In</th><th>Type</th><th>Description</th></tr></thead><tbody>${params
            .map((p) => {
              const constraints = this.constraints(p.schema);
              return `<tr><td><code>${html(p.name)}</code>${p.required ? ' <span class="req">required</span>' : ''}</td><td>${p.in}</td><td>${this.typeOf(p.schema)}${constraints ? `<div class="c">${constraints}</div>` : ''}</td><td>${inline(p.description)}</td></tr>`;
            })
            .join('')}</tbody></table>`;
    const body = op.requestBody
      ? `<h4>Request body${op.requestBody.required ? '' : ' (optional)'}</h4>${prose(op.requestBody.description)}${this.content(op.requestBody.content, true)}`
      : '';
    return `<section class="op" id="${id}"><h3><span class="m ${method}">${method.toUpperCase()}</span> <code class="path">${html(path)}</code></h3><p class="summary">${html(op.summary)}</p>${prose(op.description)}${this.security(op)}${paramTable}${body}<h4>Responses</h4>${this.responses(op.responses)}</section>`;
  }

  /** Every operation (and webhook) of the document, grouped by tag in the document's tag order. */
  entries() {
    const doc = this.link.document;
    const out: Array<{ tag: string; method: string; path: string; op: Operation; id: string; webhook: boolean }> = [];
    const add = (items: Record<string, Partial<Record<string, Operation>>>, webhook: boolean) => {
      for (const [path, item] of Object.entries(items)) {
        for (const method of HTTP_METHODS) {
          const op = item[method];
          if (!op) continue;
          out.push({
            tag: op.tags[0] ?? 'Other',
            method,
            path: webhook ? `webhook ${path}` : path,
            op,
            id: `${this.link.slug}-${slugOf(op.operationId)}`,
            webhook,
          });
        }
      }
    };
    add(doc.paths, false);
    add(doc.webhooks ?? {}, true);
    const order = doc.tags.map((t) => t.name);
    return order
      .map((tag) => ({
        tag,
        description: doc.tags.find((t) => t.name === tag)?.description,
        items: out.filter((e) => e.tag === tag),
      }))
      .filter((g) => g.items.length > 0);
  }

  render(): string {
    const doc = this.link.document;
    const groups = this.entries();
    const schemes = Object.entries(doc.components.securitySchemes)
      .map(
        ([name, s]) =>
          `<tr id="${this.link.slug}-security-${slugOf(name)}"><td><code>${html(name)}</code></td><td>${
            s.type === 'http' ? `HTTP ${html(s.scheme ?? '')}` : `header <code>${html(s.name ?? '')}</code>`
          }</td><td>${inline(s.description)}</td></tr>`,
      )
      .join('');
    const schemas = Object.entries(doc.components.schemas)
      .map(
        ([name, s]) =>
          `<section class="schema" id="${this.schemaAnchor(name)}"><h4>${html(name)}</h4>${this.schema(s)}</section>`,
      )
      .join('');
    return `<section class="doc" id="${this.link.slug}">
<h2>${html(doc.info.title)} <span class="v">${html(doc.info.version)}</span> <a class="json" href="${html(this.link.href)}">OpenAPI ${html(doc.openapi)} JSON</a></h2>
${prose(doc.info.description)}
<p>Server: ${doc.servers.map((s) => `<code>${html(s.url)}</code>`).join(', ')}</p>
<h3>Authentication</h3><table class="props"><tbody>${schemes}</tbody></table>
${groups
  .map(
    (g) =>
      `<h2 class="tag" id="${this.link.slug}-tag-${slugOf(g.tag)}">${html(g.tag)}</h2>${prose(g.description)}${g.items
        .map((e) => this.operation(e.webhook ? 'post' : e.method, e.path, e.op, e.id))
        .join('')}`,
  )
  .join('\n')}
<h2 class="tag" id="${this.link.slug}-schemas">Schemas</h2>${schemas}
</section>`;
  }

  nav(): string {
    const doc = this.link.document;
    return `<li><a href="#${this.link.slug}"><strong>${html(doc.info.title)}</strong></a><ul>${this.entries()
      .map(
        (g) =>
          `<li><a href="#${this.link.slug}-tag-${slugOf(g.tag)}">${html(g.tag)}</a><ul>${g.items
            .map(
              (e) =>
                `<li><a href="#${e.id}"><span class="m ${e.method}">${e.webhook ? 'HOOK' : e.method.toUpperCase()}</span> ${html(e.op.summary)}</a></li>`,
            )
            .join('')}</ul></li>`,
      )
      .join('')}<li><a href="#${this.link.slug}-schemas">Schemas</a></li></ul></li>`;
  }
}

const STYLE = `
*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2330;background:#fff}
header{padding:16px 24px;border-bottom:1px solid #e2e6ee;background:#f7f9fc}header h1{margin:0;font-size:22px}header p{margin:4px 0 0}
.layout{display:flex;align-items:flex-start}nav{position:sticky;top:0;width:310px;max-height:100vh;overflow:auto;padding:12px 16px;border-right:1px solid #e2e6ee;font-size:13px;flex-shrink:0}
nav ul{list-style:none;margin:0;padding-left:10px}nav>ul{padding:0}nav li{margin:2px 0}nav a{color:#1d2330;text-decoration:none}nav a:hover{text-decoration:underline}
main{flex:1;min-width:0;padding:8px 32px 64px}h2{margin-top:40px;border-bottom:2px solid #e2e6ee;padding-bottom:4px}h2.tag{font-size:20px}
.v{font-size:14px;color:#667}.json{font-size:13px;font-weight:normal;margin-left:8px}
.op{border:1px solid #e2e6ee;border-radius:6px;padding:4px 16px 12px;margin:16px 0}.op h3{margin:10px 0 2px;font-size:16px;word-break:break-all}
.summary{margin:0 0 6px;font-weight:600}.sec{color:#445}h4{margin:14px 0 6px;font-size:14px}
.m{display:inline-block;min-width:54px;text-align:center;border-radius:4px;padding:1px 6px;font-size:12px;font-weight:700;color:#fff;background:#667}
.m.get{background:#2f7d32}.m.post{background:#1f5fbf}.m.put{background:#a86400}.m.patch{background:#7b3fb5}.m.delete{background:#b3261e}
code{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f2f4f8;border-radius:3px;padding:0 3px}
pre{background:#f2f4f8;padding:8px;border-radius:4px;overflow:auto;font-size:12px}
table.props{border-collapse:collapse;width:100%;margin:4px 0;font-size:13px}table.props td,table.props th{border:1px solid #e2e6ee;padding:4px 6px;vertical-align:top;text-align:left}
table.props th{background:#f7f9fc}.req{color:#b3261e;font-size:11px}.c{color:#556;font-size:12px}.d{margin:2px 0}.type{margin:4px 0}
.nested{margin-top:4px}.media{margin:4px 0 8px}.response{display:flex;gap:10px;border-top:1px solid #eef0f4;padding:6px 0}
.status{font-weight:700;min-width:42px}.s2{color:#2f7d32}.s4{color:#a86400}.s5{color:#b3261e}.rbody{flex:1;min-width:0}
details summary{cursor:pointer;color:#1f5fbf;font-size:13px}.schema{border-top:1px solid #eef0f4}
@media (max-width:900px){.layout{display:block}nav{position:static;width:auto;max-height:none;border-right:0}main{padding:8px 12px}}
`;

/** The whole page: both documents, a table of contents, one inline style sheet. */
export function renderDocsPage(links: DocumentLink[]): string {
  const renderers = links.map((l) => new Renderer(l));
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>snapgate API reference</title><style>${STYLE}</style></head>
<body><header><h1>snapgate API reference</h1><p>${links
    .map((l) => `<a href="${html(l.href)}">${html(l.document.info.title)} (OpenAPI JSON)</a>`)
    .join(' · ')}</p></header>
<div class="layout"><nav><ul>${renderers.map((r) => r.nav()).join('')}</ul></nav>
<main>${renderers.map((r) => r.render()).join('\n')}</main></div></body></html>`;
}
