import { requiredScope } from '../admin-auth.ts';
import { idParams, rotateSchema } from '../admin-body.ts';
import {
  closed,
  type Example,
  fromZod,
  HTTP_METHODS,
  type JsonSchema,
  json,
  nullable,
  type Operation,
  type Parameter,
  type PathItem,
  pathParameter,
  type RequestBody,
  type Response,
  ref,
} from './kit.ts';

// What every admin route's OpenAPI path item is written with: the refusals all admin routes
// share, bodies, answers, pages and parameters. Each route file (http/routes/admin-*.ts) describes
// its own routes with these; admin-document.ts assembles the areas.

export const ADMIN = '/admin/v1';

/** The admin document's tags (their descriptions are in admin-document.ts). */
export const TAG = {
  merchants: 'Merchants',
  transactions: 'Transactions',
  notifications: 'Notifications',
  providers: 'Providers',
  books: 'Books',
  sandbox: 'Sandbox',
  access: 'Admin keys and audit',
  operations: 'Operations',
} as const;

export const DATE_TIME: JsonSchema = { type: 'string', format: 'date-time' };
/** The instant every example is at. */
export const T = '2026-01-15T03:30:00.000Z';

const STATUS_TITLE: Record<string, string> = {
  '400': 'Bad Request',
  '401': 'Unauthorized',
  '403': 'Forbidden',
  '404': 'Not Found',
  '409': 'Conflict',
  '413': 'Content Too Large',
  '429': 'Too Many Requests',
  '500': 'Internal Server Error',
};

const problemExample = (status: string, detail: string, errors?: string[]): Record<string, Example> => ({
  example: {
    value: {
      type: 'about:blank',
      title: STATUS_TITLE[status],
      status: Number(status),
      detail,
      ...(errors ? { errors } : {}),
    },
  },
});

/** A problem+json answer of one status. */
export function problem(status: string, description: string, example: Record<string, Example>): Response {
  return {
    description,
    content: json(
      { ...ref('Problem'), properties: { status: { const: Number(status) } } },
      example,
      'application/problem+json',
    ),
  };
}

export const UNAUTHORIZED = problem(
  '401',
  'No admin key, an unknown one, or a revoked one.',
  problemExample('401', 'a valid admin key is required (Authorization: Bearer <key>)'),
);
const TOO_MANY = problem(
  '429',
  'Too many failed authentications from this address (or with this key prefix) within a minute: wait `Retry-After` seconds. A valid key is still accepted.',
  problemExample('429', 'too many failed authentications: try again in 42 s'),
);
const SERVER_ERROR = problem('500', 'Unexpected failure (logged; no detail is sent).', {
  example: { value: { type: 'about:blank', title: 'Internal Server Error', status: 500 } },
});
const TOO_LARGE = problem('413', 'The body is over 64 KiB.', problemExample('413', 'Request body is too large'));
export const badRequest = (description: string, errors = ['name: Too small: expected string to have >=1 characters']) =>
  problem('400', description, problemExample('400', 'invalid request body', errors));
export const notFound = (what: string) =>
  problem('404', `No such ${what}.`, problemExample('404', `${what} not found`));
export const conflict = (description: string, detail: string) =>
  problem('409', description, problemExample('409', detail));
export const BAD_QUERY = problem(
  '400',
  'A query parameter is invalid, or unknown: every problem is listed in `errors`.',
  problemExample('400', 'invalid query', ['limit: Too small: expected number to be >=1']),
);
export const BAD_PATH = problem(
  '400',
  'The id is over 64 characters.',
  problemExample('400', 'invalid path', ['id: Too big: expected string to have <=64 characters']),
);

const BAD_TEXT = problem(
  '400',
  'A path parameter or query value holds a control character or an unpaired surrogate.',
  problemExample('400', 'invalid query', ['cursor: control characters and unpaired surrogates are not allowed']),
);

const FORBIDDEN = problem(
  '403',
  'The admin key’s scope does not cover this operation.',
  problemExample('403', 'the key reader has the read scope; this needs admin'),
);

/** An admin operation, with the refusals every admin route shares. */
export function op(o: Operation): Operation {
  return {
    ...o,
    responses: { '400': BAD_TEXT, ...o.responses, '401': UNAUTHORIZED, '429': TOO_MANY, '500': SERVER_ERROR },
  };
}

/**
 * Every /admin/v1 operation takes an admin key whose scope covers it: the scope is the one the
 * auth hook itself asks (`requiredScope`). A write can also be refused for its scope (403) and for
 * a body over 64 KiB (413).
 */
export function scoped(paths: Record<string, PathItem>): Record<string, PathItem> {
  const out: Record<string, PathItem> = {};
  for (const [path, item] of Object.entries(paths)) {
    const scopedItem: PathItem = {};
    for (const method of HTTP_METHODS) {
      const o = item[method];
      if (!o) continue;
      const scope = requiredScope(method.toUpperCase(), path.replace(/\{(\w+)\}/g, ':$1'));
      scopedItem[method] = {
        ...o,
        description: [o.description, `Scope: \`${scope}\`.`].filter(Boolean).join('\n\n'),
        security: [{ adminKey: [scope] }],
        responses: {
          ...o.responses,
          ...(scope === 'read' ? {} : { '403': FORBIDDEN }),
          ...(method === 'get' ? {} : { '413': TOO_LARGE }),
        },
      };
    }
    out[path] = scopedItem;
  }
  return out;
}

/** A JSON request body with its example. */
export function body(
  schema: JsonSchema,
  example: unknown,
  options: { optional?: boolean; description?: string } = {},
): RequestBody {
  return {
    required: !options.optional,
    description: [
      'JSON (`Content-Type: application/json`); unknown fields are refused.',
      options.optional ? 'May be empty.' : '',
      options.description ?? '',
    ]
      .filter(Boolean)
      .join(' '),
    content: json(schema, { example: { value: example } }),
  };
}

/** A JSON answer of one status (200 unless told), with its example. */
export const ok = (
  description: string,
  schema: JsonSchema,
  example?: unknown,
  status = '200',
): Record<string, Response> => ({
  [status]: { description, content: json(schema, example === undefined ? {} : { example: { value: example } }) },
});

/** A page of a list: `items` of a component schema, and the cursor of the next page. */
export const page = (item: string): JsonSchema =>
  closed({
    items: { type: 'array', items: ref(item) },
    nextCursor: {
      ...nullable({ type: 'string' }),
      description: 'Pass as `cursor` for the next page; null at the end.',
    },
  });

export const LIST_DESCRIPTIONS = {
  limit: 'Page size.',
  cursor: 'The `nextCursor` of the previous page.',
  merchantId: 'Only this merchant’s.',
  referenceNo: 'Only this transaction’s.',
};

/** `order` of a list that is newest first by default. */
export const ORDER_DESCRIPTION = '`newest` (the default) or `oldest` first.';

export const PATCH_NOTE = 'At least one field is required. `null` clears a nullable setting.';

/** `/…/{id}` as `idParams` takes it (at most 64 characters). */
export const idParam = (what: string): Parameter => pathParameter(idParams, 'id', `The ${what}’s id.`);
/** A path parameter the route takes as it comes. */
export const textParam = (name: string, description: string): Parameter => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: { type: 'string' },
});

/** `POST /…/{id}/rotate-secret` of a merchant or a provider (`what`): its body and its answers. */
export const rotateSecret = (what: string): Pick<Operation, 'requestBody' | 'responses'> => ({
  requestBody: body(
    fromZod(rotateSchema, { overlapSec: 'Seconds the previous secret keeps working (default 86400).' }),
    { overlapSec: 3600 },
    { optional: true },
  ),
  responses: {
    ...ok('The new secret, shown once.', ref('RotatedSecret'), {
      clientSecret: 'Zk9…base64url',
      previousValidUntil: T,
    }),
    '400': badRequest('Invalid body.', ['overlapSec: Too big: expected number to be <=2592000']),
    '404': notFound(what),
  },
});
