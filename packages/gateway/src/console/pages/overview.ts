import type { FastifyInstance } from 'fastify';
import type { AttemptMinute } from '../../operators/overview.ts';
import { age, jakartaDayStart, jakartaMinute, jakartaTime, statusName } from '../../web/format.ts';
import { type Html, html } from '../../web/html.ts';
import { config, type OperatorPages } from '../operator.ts';
import { badge, empty } from '../views.ts';

/** SNAPGATE_STAGING_ALLOW, said where an operator looks first: production mode dials these private hosts. */
function stagingNotice(allowed: string[]): Html | string {
  if (allowed.length === 0) return '';
  return html`<p class="flash error" id="staging-allow" role="status">Staging rehearsal: the gateway also dials ${allowed.join(', ')} (SNAPGATE_STAGING_ALLOW). Remove it before real payments.</p>`;
}

/** `/console/overview`: today's transactions, callbacks, the backlog and the last hour's deliveries. */
export function overviewPages(op: FastifyInstance, pages: OperatorPages): void {
  const { clock, overview } = pages.deps;

  op.get('/overview', { config }, async (request, reply) => {
    const now = clock.now();
    const dayStart = jakartaDayStart(now);
    const hourAgo = Math.floor((now - 3600_000) / 60_000) * 60_000 + 60_000;
    const o = await overview.overview({ dayStart, minutesSince: hourAgo });
    const byStatus = o.transactionsByStatus;
    const byState = o.notificationsByState;
    const total = Object.values(byStatus).reduce((a, b) => a + b, 0);
    return pages.page(
      request,
      reply,
      'Overview',
      'overview',
      html`<h1>Overview</h1>${stagingNotice(pages.deps.config.stagingAllow.text)}
<div class="grid">
<section class="card" aria-labelledby="h-today"><h2 id="h-today">Transactions today</h2>
<p class="stat">${total}</p><p class="muted">since ${jakartaTime(dayStart)}</p>
${
  total === 0
    ? html`<p class="muted">No transaction yet today.</p>`
    : html`<table><tbody>${Object.entries(byStatus)
        .sort()
        .map(
          ([s, n]) => html`<tr><td>${badge(`s-${s}`, statusName(s))}</td><td class="num">${n}</td></tr>`,
        )}</tbody></table>`
}</section>
<section class="card" aria-labelledby="h-callbacks"><h2 id="h-callbacks">Callbacks</h2>
<dl class="kv">
<dt>Delivered</dt><dd id="count-delivered">${byState.delivered ?? 0}</dd>
<dt>Retrying</dt><dd id="count-retrying">${byState.retrying ?? 0}</dd>
<dt>Dead</dt><dd id="count-dead">${(byState.dead ?? 0) > 0 ? html`<a href="/console/notifications?state=dead">${byState.dead}</a>` : 0}</dd>
<dt>Pending</dt><dd>${(byState.pending ?? 0) + (byState.delivering ?? 0)}</dd>
</dl></section>
<section class="card" aria-labelledby="h-backlog"><h2 id="h-backlog">Backlog</h2>
<p class="stat">${o.backlog.undelivered}</p>
<p class="muted">${o.backlog.oldestUndeliveredAt === null ? 'Nothing waiting.' : `oldest waiting ${age(now - o.backlog.oldestUndeliveredAt)} (since ${jakartaTime(o.backlog.oldestUndeliveredAt)})`}</p>
</section>
</div>
<section class="card" aria-labelledby="h-chart"><h2 id="h-chart">Deliveries per minute, last hour</h2>
${deliveryChart(o.attemptsPerMinute, hourAgo)}</section>
<section class="card" aria-labelledby="h-inbound"><h2 id="h-inbound">Inbound provider calls today</h2>
${
  o.providers.length === 0
    ? empty('No provider is registered.')
    : html`<div class="table-wrap"><table class="stack"><thead><tr><th>Provider</th><th class="num">Calls</th></tr></thead><tbody>${o.providers.map(
        (p) =>
          html`<tr><td data-label="Provider"><a href="/console/providers/${encodeURIComponent(p.id)}">${p.name}</a></td><td data-label="Calls" class="num">${o.inboundByProvider[p.id] ?? 0}</td></tr>`,
      )}</tbody></table></div>`
}</section>`,
    );
  });
}

function deliveryChart(minutes: AttemptMinute[], from: number): Html {
  const byMinute = new Map(minutes.map((m) => [m.minute, m]));
  const bars = Array.from({ length: 60 }, (_, i) => {
    const minute = from + i * 60_000;
    const m = byMinute.get(minute);
    return { minute, ok: m?.acknowledged ?? 0, failed: m?.failed ?? 0 };
  });
  const max = Math.max(1, ...bars.map((b) => b.ok + b.failed));
  const total = bars.reduce((a, b) => a + b.ok, 0);
  const failed = bars.reduce((a, b) => a + b.failed, 0);
  const W = 600;
  const H = 160;
  const bw = W / 60;
  const scale = (n: number) => (n / max) * (H - 20);
  // The labels are HTML around the drawing, not SVG text: they keep the page's font size when the
  // drawing shrinks to a phone's width.
  return html`<p class="chart-max muted" aria-hidden="true">${max} a minute at most</p>
<svg class="chart" viewBox="0 0 ${W} ${H + 2}" preserveAspectRatio="none" role="img" aria-labelledby="chart-title">
<title id="chart-title">${total} callbacks delivered and ${failed} failed attempts in the last hour (at most ${max} a minute)</title>
${bars.map((b) => {
  const okH = scale(b.ok);
  const failH = scale(b.failed);
  const x = (bars.indexOf(b) * bw).toFixed(1);
  return html`<g><title>${jakartaMinute(b.minute)}: ${b.ok} delivered, ${b.failed} failed</title>
<rect class="ok" x="${x}" y="${(H - okH).toFixed(1)}" width="${(bw - 1).toFixed(1)}" height="${okH.toFixed(1)}"></rect>
<rect class="failed" x="${x}" y="${(H - okH - failH).toFixed(1)}" width="${(bw - 1).toFixed(1)}" height="${failH.toFixed(1)}"></rect></g>`;
})}
<line x1="0" y1="${H}" x2="${W}" y2="${H}" stroke="#aab4c1"></line>
</svg>
<div class="chart-axis" aria-hidden="true"><span>${jakartaMinute(from)}</span><span>${jakartaMinute(from + 30 * 60_000)}</span><span>${jakartaMinute(from + 59 * 60_000)}</span></div>
<p class="muted">${total} delivered, ${failed} failed attempts in the last hour. Green: acknowledged; red: rejected or failed.</p>`;
}
