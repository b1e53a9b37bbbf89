import { ADMIN, scoped, TAG } from './admin-kit.ts';
import { ADMIN_SCHEMAS, created } from './admin-schemas.ts';
import { OAS_DIALECT, type OpenApiDocument, type PathItem } from './kit.ts';

// The admin API document: every route declares its operation where it is registered
// (route-docs.ts), written with the helpers of admin-kit.ts, its request body and query generated
// from the very zod schemas the route parses with, so they cannot drift; the shared answers are the
// components of admin-schemas.ts. Every answer is proven by test/http/openapi.test.ts against the
// running gateway.

/** The admin API document: everything under /admin/v1 (the sandbox routes only in sandbox mode), and health. */
export function buildAdminDocument(options: {
  publicUrl: string;
  sandbox: boolean;
  /** The operations declared with their routes (route-docs.ts), by path. */
  documented: Record<string, PathItem>;
}): OpenApiDocument {
  const tags = [
    { name: TAG.merchants, description: 'Merchants: SNAP clients, their secrets and their callback settings.' },
    { name: TAG.transactions, description: 'QRIS and Virtual Account transactions, with their history.' },
    { name: TAG.notifications, description: 'The callback outbox: what was sent to merchants, and sending it again.' },
    { name: TAG.providers, description: 'Banks and acquirers that call the SNAP provider API.' },
    {
      name: TAG.books,
      description: 'Fees, the double-entry ledger, settlements and payouts, reconciliation against providers’ reports.',
    },
    ...(options.sandbox
      ? [
          {
            name: TAG.sandbox,
            description: 'The payer’s side, in sandbox mode only: pay through the real provider path.',
          },
        ]
      : []),
    {
      name: TAG.access,
      description: 'Who may use the admin API, what they did, and the keys that seal secrets at rest.',
    },
    { name: TAG.operations, description: 'Health and metrics.' },
  ];
  // The routes under /admin/v1 take an admin key of a scope; the others (health) say their own.
  const documented = Object.entries(options.documented);
  const guarded = Object.fromEntries(documented.filter(([path]) => path.startsWith(`${ADMIN}/`)));
  const open = Object.fromEntries(documented.filter(([path]) => !path.startsWith(`${ADMIN}/`)));
  return {
    openapi: '3.1.1',
    info: {
      title: 'snapgate admin API',
      version: 'v1',
      summary: 'Operate a snapgate gateway: merchants, providers, transactions, callbacks.',
      description: [
        'Every `/admin/v1` call needs `Authorization: Bearer <admin key>`, with a scope that covers it: `read` for every GET, `operate` also for deliveries (replay, recover) and the sandbox, `admin` for everything. `SNAPGATE_ADMIN_TOKEN` is the `bootstrap` key, of scope `admin`. Every state-changing call is written to the audit log.',
        'Bodies are JSON objects (`Content-Type: application/json`); unknown fields and unknown query parameters are refused, and so is text holding a control character (other than tab, line feed, carriage return) or an unpaired surrogate, in a body, a path or a query. Errors are RFC 9457 problem details (`application/problem+json`), listing every problem found in `errors`. An unknown path is 404.',
        'Request bodies and query parameters in this document are generated from the schemas the routes validate with.',
      ].join('\n\n'),
    },
    jsonSchemaDialect: OAS_DIALECT,
    servers: [{ url: options.publicUrl, description: 'This gateway (`SNAPGATE_PUBLIC_URL`).' }],
    tags,
    security: [{ adminKey: [] }],
    paths: {
      ...scoped(guarded),
      ...open,
    },
    components: {
      schemas: {
        ...ADMIN_SCHEMAS,
        CreatedMerchant: created('Merchant'),
        CreatedProvider: created('Provider'),
        CreatedAdminKey: created('AdminKey', 'key', 'The key itself: shown this once, here.'),
      },
      securitySchemes: {
        adminKey: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An admin key: `SNAPGATE_ADMIN_TOKEN` (the `bootstrap` key), or one made with `POST /admin/v1/admin-keys`. The role each operation lists is the scope it needs: `read` < `operate` < `admin`.',
        },
      },
    },
  };
}
