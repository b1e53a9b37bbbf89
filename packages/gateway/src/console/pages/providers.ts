import type { FastifyInstance } from 'fastify';
import { jakartaTime } from '../format.ts';
import { html } from '../html.ts';
import { PAGE, q } from '../kit.ts';
import { config, type OperatorPages } from '../operator.ts';
import { badge, empty } from '../views.ts';

/** Providers (banks and acquirers) with their calls of the last day, and one provider's inbound log. */
export function providerPages(op: FastifyInstance, pages: OperatorPages): void {
  const { clock, providers } = pages.deps;

  op.get('/providers', { config }, async (request, reply) => {
    const now = clock.now();
    const [list, inbound] = await Promise.all([
      providers.list({ limit: 500 }),
      providers.inboundCounts(now - 86_400_000),
    ]);
    return pages.page(
      request,
      reply,
      'Providers',
      'providers',
      html`<h1>Providers</h1>${
        list.items.length === 0
          ? empty('No provider is registered.')
          : html`<div class="table-wrap"><table><thead><tr><th>Name</th><th>Kind</th><th>Bank code</th><th>Status</th><th class="num">Calls (24 h)</th></tr></thead><tbody>${list.items.map(
              (p) =>
                html`<tr><td><a href="/console/providers/${encodeURIComponent(p.id)}">${p.name}</a>${p.isSandbox ? html` <span class="badge">sandbox</span>` : ''}</td><td>${p.kind}</td><td>${p.bankCode}</td><td>${badge(p.status, p.status)}</td><td class="num">${inbound[p.id] ?? 0}</td></tr>`,
            )}</tbody></table></div>`
      }`,
    );
  });

  op.get<{ Params: { id: string } }>('/providers/:id', { config }, async (request, reply) => {
    const p = await providers.get(request.params.id);
    const calls = await providers.inbound(p.id, { limit: PAGE, cursor: q(request.query, 'cursor') });
    return pages.page(
      request,
      reply,
      p.name,
      'providers',
      html`<h1>${p.name} ${badge(p.status, p.status)}</h1>
<section class="card"><dl class="kv"><dt>Id</dt><dd>${p.id}</dd><dt>Kind</dt><dd>${p.kind}</dd><dt>Bank code</dt><dd>${p.bankCode}</dd><dt>Client key</dt><dd>${p.clientKey}</dd>
<dt>Calls out to</dt><dd>${p.outbound?.baseUrl ?? '—'}</dd></dl></section>
<h2>Inbound log</h2>
${
  calls.items.length === 0
    ? empty('This provider has not called the gateway yet.')
    : calls.items.map(
        (
          c,
        ) => html`<details><summary>${jakartaTime(c.at)} · ${c.method} ${c.path} · HTTP ${c.httpStatus} ${c.responseCode ?? ''} · ${c.durationMs} ms</summary>
<h4>Request body</h4><pre>${c.requestBody}</pre><h4>Response body</h4><pre>${c.responseBody}</pre></details>`,
      )
}
${calls.nextCursor ? html`<nav class="pager"><a href="/console/providers/${encodeURIComponent(p.id)}?cursor=${encodeURIComponent(calls.nextCursor)}">Older →</a></nav>` : ''}`,
    );
  });
}
