import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { MerchantUserService, MerchantUserView } from '../../merchants/merchant-users.ts';
import { MERCHANT_ROLES } from '../../records/merchant-user-records.ts';
import { parseAdminBody, parseWith, refuseBody } from '../admin-body.ts';
import {
  BAD_PATH,
  badRequest,
  body,
  conflict,
  idParam,
  notFound,
  ok,
  op,
  T,
  TAG,
  textParam,
} from '../openapi/admin-kit.ts';
import type { JsonSchema } from '../openapi/kit.ts';
import { documentedRoute, type RouteDocs } from '../openapi/route-docs.ts';

const userParams = z.object({ id: z.string().max(64), userId: z.string().max(64) });
const inviteSchema = z.strictObject({ email: z.string().max(254), role: z.enum(MERCHANT_ROLES) });
const patchSchema = z.strictObject({ role: z.enum(MERCHANT_ROLES) });

/** A user as the admin API answers it. */
const viewOf = (u: MerchantUserView) => ({
  id: u.id,
  merchantId: u.merchantId,
  email: u.email,
  role: u.role,
  status: u.status,
  twoFactor: u.twoFactor,
  lastSignInAt: u.lastSignInAt === null ? null : new Date(u.lastSignInAt).toISOString(),
  createdAt: new Date(u.createdAt).toISOString(),
});

const USER_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'merchantId', 'email', 'role', 'status', 'twoFactor', 'lastSignInAt', 'createdAt'],
  properties: {
    id: { type: 'string' },
    merchantId: { type: 'string' },
    email: { type: 'string', description: 'Lower case; one user per address across the gateway.' },
    role: { type: 'string', enum: [...MERCHANT_ROLES] },
    status: {
      type: 'string',
      enum: ['invited', 'active', 'disabled'],
      description: '`invited` until the user sets a password from the invitation link.',
    },
    twoFactor: { type: 'boolean', description: 'Whether the user signs in with a TOTP code too.' },
    lastSignInAt: { type: ['string', 'null'], format: 'date-time' },
    createdAt: { type: 'string', format: 'date-time' },
  },
};
const INVITED_SCHEMA: JsonSchema = {
  ...USER_SCHEMA,
  required: [...(USER_SCHEMA.required as string[]), 'invitationUrl'],
  properties: {
    ...(USER_SCHEMA.properties as Record<string, JsonSchema>),
    invitationUrl: {
      type: 'string',
      format: 'uri',
      description: 'The one-time invitation link (72 hours): shown this once, never logged or audited.',
    },
  },
};
const USER_EXAMPLE = {
  id: 'mu_Xk2m9QpLr4TnW8vYz1aBcD',
  merchantId: 'm_7f3a9c',
  email: 'siti@toko.example',
  role: 'finance',
  status: 'invited',
  twoFactor: false,
  lastSignInAt: null,
  createdAt: T,
};
const INVITED_EXAMPLE = {
  ...USER_EXAMPLE,
  invitationUrl: 'https://gateway.example/merchant/invitation/q9Lr2mXk4TnW8vYz1aBcDeFgHiJkLmNoPqRsTuVwXyZ',
};
const userParam = textParam('userId', 'The user’s id.');

/**
 * Merchant users (docs/merchant-users.md): the operator invites a merchant's people, who sign in
 * to the merchant's dashboard themselves; lists them, changes a role, invites again, disables.
 */
export function adminMerchantUserRoutes(
  app: FastifyInstance,
  deps: { users: MerchantUserService; docs: RouteDocs },
): void {
  const { users } = deps;
  // The invitation link is a credential: the audit log keeps that one was made, never the link.
  const redacted = { api: 'admin' as const, auditRedacts: ['invitationUrl'] };
  const ids = (params: unknown) => parseWith(userParams, params, 'invalid path');

  documentedRoute<{ Params: { id: string } }>(app, deps.docs, {
    method: 'post',
    url: '/merchants/:id/users',
    config: redacted,
    operation: op({
      operationId: 'inviteMerchantUser',
      tags: [TAG.merchants],
      summary: 'Invite a merchant user',
      description:
        'A person of the merchant who signs in to its dashboard at `/merchant`, with a role: `owner` (everything, and its users), `finance` (money: refunds), `developer` (keys, callback settings, deliveries, replay) or `viewer` (read only). The answer holds the one-time invitation link (72 hours), where the user sets a password; it is shown this once.',
      parameters: [idParam('merchant')],
      requestBody: body(
        {
          type: 'object',
          additionalProperties: false,
          required: ['email', 'role'],
          properties: {
            email: { type: 'string', maxLength: 254 },
            role: { type: 'string', enum: [...MERCHANT_ROLES] },
          },
        },
        { email: 'siti@toko.example', role: 'finance' },
      ),
      responses: {
        ...ok('The user, invited, and its invitation link.', INVITED_SCHEMA, INVITED_EXAMPLE, '201'),
        '400': badRequest('The email or the role is not valid.', [
          'email: an email address, such as siti@toko.example',
        ]),
        '404': notFound('merchant'),
        '409': conflict(
          'A user with this email exists (of any merchant).',
          'siti@toko.example is a user already (of this or another merchant)',
        ),
      },
    }),
    handler: async (request, reply) => {
      const input = parseAdminBody(request, inviteSchema);
      const { user, invitationUrl } = await users.invite(request.params.id.slice(0, 64), input);
      return reply.code(201).send({ ...viewOf(user), invitationUrl });
    },
  });

  documentedRoute<{ Params: { id: string } }>(app, deps.docs, {
    method: 'get',
    url: '/merchants/:id/users',
    config: { api: 'admin' },
    operation: op({
      operationId: 'listMerchantUsers',
      tags: [TAG.merchants],
      summary: 'List a merchant’s users',
      description: 'Oldest first, disabled ones included.',
      parameters: [idParam('merchant')],
      responses: {
        ...ok(
          'The users.',
          {
            type: 'object',
            additionalProperties: false,
            required: ['items'],
            properties: { items: { type: 'array', items: USER_SCHEMA } },
          },
          { items: [USER_EXAMPLE] },
        ),
        '404': notFound('merchant'),
      },
    }),
    handler: async (request) => ({ items: (await users.list(request.params.id.slice(0, 64))).map(viewOf) }),
  });

  documentedRoute<{ Params: { id: string; userId: string } }>(app, deps.docs, {
    method: 'get',
    url: '/merchants/:id/users/:userId',
    config: { api: 'admin' },
    operation: op({
      operationId: 'getMerchantUser',
      tags: [TAG.merchants],
      summary: 'Get a merchant user',
      parameters: [idParam('merchant'), userParam],
      responses: { ...ok('The user.', USER_SCHEMA, USER_EXAMPLE), '400': BAD_PATH, '404': notFound('user') },
    }),
    handler: async (request) => {
      const { id, userId } = ids(request.params);
      return viewOf(await users.get(id, userId));
    },
  });

  documentedRoute<{ Params: { id: string; userId: string } }>(app, deps.docs, {
    method: 'patch',
    url: '/merchants/:id/users/:userId',
    config: { api: 'admin' },
    operation: op({
      operationId: 'updateMerchantUser',
      tags: [TAG.merchants],
      summary: 'Change a merchant user’s role',
      description: 'The user’s sessions go on with the new role at once.',
      parameters: [idParam('merchant'), userParam],
      requestBody: body(
        {
          type: 'object',
          additionalProperties: false,
          required: ['role'],
          properties: { role: { type: 'string', enum: [...MERCHANT_ROLES] } },
        },
        { role: 'viewer' },
      ),
      responses: {
        ...ok('The user after.', USER_SCHEMA, { ...USER_EXAMPLE, role: 'viewer' }),
        '400': badRequest('The role is not valid.', [
          'role: Invalid option: expected one of "owner"|"finance"|"developer"|"viewer"',
        ]),
        '404': notFound('user'),
        '409': conflict('The user is disabled.', 'user mu_Xk2m9QpLr4TnW8vYz1aBcD is disabled'),
      },
    }),
    handler: async (request) => {
      const { id, userId } = ids(request.params);
      const { role } = parseAdminBody(request, patchSchema);
      return viewOf(await users.changeRole(id, userId, role));
    },
  });

  documentedRoute<{ Params: { id: string; userId: string } }>(app, deps.docs, {
    method: 'post',
    url: '/merchants/:id/users/:userId/invitation',
    config: redacted,
    operation: op({
      operationId: 'reinviteMerchantUser',
      tags: [TAG.merchants],
      summary: 'Invite a merchant user again',
      description:
        'A new invitation link (72 hours) for a user who has not set a password yet; the previous link stops working. Shown this once. No body.',
      parameters: [idParam('merchant'), userParam],
      responses: {
        ...ok('The user and its new invitation link.', INVITED_SCHEMA, INVITED_EXAMPLE, '201'),
        '404': notFound('user'),
        '409': conflict(
          'The user is not invited (active or disabled).',
          'user mu_Xk2m9QpLr4TnW8vYz1aBcD is active: only an invited user is invited again',
        ),
      },
    }),
    handler: async (request, reply) => {
      refuseBody(request);
      const { id, userId } = ids(request.params);
      const { user, invitationUrl } = await users.reinvite(id, userId);
      return reply.code(201).send({ ...viewOf(user), invitationUrl });
    },
  });

  documentedRoute<{ Params: { id: string; userId: string } }>(app, deps.docs, {
    method: 'post',
    url: '/merchants/:id/users/:userId/reset-two-factor',
    config: { api: 'admin' },
    operation: op({
      operationId: 'resetMerchantUserTwoFactor',
      tags: [TAG.merchants],
      summary: 'Turn a merchant user’s two-factor sign-in off',
      description:
        'For a user who lost the phone with the authenticator app: the key is dropped and the user’s sessions end; the user signs in with the password alone and may set two-factor sign-in up again (with `SNAPGATE_MERCHANT_2FA=required`, right away). No body.',
      parameters: [idParam('merchant'), userParam],
      responses: {
        ...ok('The user after.', USER_SCHEMA, { ...USER_EXAMPLE, status: 'active' }),
        '404': notFound('user'),
        '409': conflict('The user is disabled.', 'user mu_Xk2m9QpLr4TnW8vYz1aBcD is disabled'),
      },
    }),
    handler: async (request) => {
      refuseBody(request);
      const { id, userId } = ids(request.params);
      return viewOf(await users.resetTwoFactor(id, userId));
    },
  });

  documentedRoute<{ Params: { id: string; userId: string } }>(app, deps.docs, {
    method: 'post',
    url: '/merchants/:id/users/:userId/disable',
    config: { api: 'admin' },
    operation: op({
      operationId: 'disableMerchantUser',
      tags: [TAG.merchants],
      summary: 'Disable a merchant user',
      description: 'For good: the user’s sessions end at once, and its invitation link stops working. No body.',
      parameters: [idParam('merchant'), userParam],
      responses: {
        ...ok('The user after.', USER_SCHEMA, { ...USER_EXAMPLE, status: 'disabled' }),
        '404': notFound('user'),
        '409': conflict('The user is disabled already.', 'user mu_Xk2m9QpLr4TnW8vYz1aBcD is disabled already'),
      },
    }),
    handler: async (request) => {
      refuseBody(request);
      const { id, userId } = ids(request.params);
      return viewOf(await users.disable(id, userId));
    },
  });
}
