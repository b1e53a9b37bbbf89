import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.ts';
import { buildAdminDocument } from '../openapi/admin-document.ts';
import { renderDocsPage } from '../openapi/docs-page.ts';
import type { RouteDocs } from '../openapi/route-docs.ts';
import { buildSnapDocument } from '../openapi/snap-document.ts';

const SNAP_DOCUMENT_PATH = '/openapi/snap.json';
const ADMIN_DOCUMENT_PATH = '/openapi/admin.json';
const DOCS_PATH = '/docs';

/**
 * The OpenAPI 3.1 documents of the SNAP and admin APIs, and a page that shows both. Public, like
 * the health routes: they describe this gateway (its mode and public URL), and hold no secret.
 * Built once, at the first request for one, and served as the same bytes every time.
 */
export function openapiRoutes(
  app: FastifyInstance,
  deps: { config: Config; adminDocs: RouteDocs; snapDocs: RouteDocs },
) {
  const { mode, publicUrl } = deps.config;
  const config = { api: 'admin' as const };
  // Built at the first request for them, when every route (with the operation declared beside
  // it) is registered: a request is only answered once the gateway is ready.
  let built: { snapJson: string; adminJson: string; page: string } | undefined;
  const documents = () => {
    if (built) return built;
    const snap = buildSnapDocument({ publicUrl, mounts: deps.config.snapMounts, documented: deps.snapDocs.paths() });
    const admin = buildAdminDocument({ publicUrl, sandbox: mode === 'sandbox', documented: deps.adminDocs.paths() });
    built = {
      snapJson: JSON.stringify(snap),
      adminJson: JSON.stringify(admin),
      page: renderDocsPage([
        { href: SNAP_DOCUMENT_PATH, slug: 'snap', document: snap },
        { href: ADMIN_DOCUMENT_PATH, slug: 'admin', document: admin },
      ]),
    };
    return built;
  };

  app.get(SNAP_DOCUMENT_PATH, { config }, async (_request, reply) =>
    reply.type('application/json').send(documents().snapJson),
  );
  app.get(ADMIN_DOCUMENT_PATH, { config }, async (_request, reply) =>
    reply.type('application/json').send(documents().adminJson),
  );
  app.get(DOCS_PATH, { config }, async (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      // Nothing but the page itself: no script, no external asset.
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'")
      .send(documents().page),
  );
}
