import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseRetrySchedule } from '../../config.ts';
import type { MerchantService } from '../../merchants/merchant-service.ts';
import { merchantView } from '../../merchants/merchant-service.ts';
import { idParams, listQuery, parseAdminBody, parseWith, rotateSchema } from '../admin-body.ts';

const text = (max: number) => z.string().trim().min(1).max(max);
const url = z.string().max(2048);
const pem = z.string().max(16_384);
const tokenSignature = z.enum(['any', 'hmac-sha256', 'rsa-sha256']);
const callbackSignature = z.enum(['hmac-sha512', 'rsa-sha256', 'snap-b2b']);
const callbackJson = z.enum(['standard', 'php']);
const retrySchedule = z
  .string()
  .max(200)
  .refine((v) => parseRetrySchedule(v) !== undefined, 'must be a comma-separated list of durations like 0s,10s,1m,2h');
const printable = (max: number) => text(max).regex(/^[\x20-\x7e]+$/, 'must be printable ASCII (EMVCo)');
const qris = {
  merchantName: printable(25),
  merchantCity: printable(15),
  nmid: z.string().regex(/^ID\d{10,13}$/, 'must be ID followed by 10 to 13 digits'),
  mcc: z.string().regex(/^\d{4}$/, 'must be 4 digits'),
};

export const createSchema = z.strictObject({
  name: text(100),
  callbackBaseUrl: url.optional(),
  qrisCallbackUrl: url.optional(),
  vaCallbackUrl: url.optional(),
  partnerId: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1 to 64 letters, digits, dot, dash or underscore')
    .optional(),
  publicKeyPem: pem.optional(),
  tokenSignature: tokenSignature.optional(),
  callbackSignature: callbackSignature.optional(),
  callbackJson: callbackJson.optional(),
  callbackTokenUrl: url.optional(),
  merchantName: qris.merchantName.optional(),
  merchantCity: qris.merchantCity.optional(),
  nmid: qris.nmid.optional(),
  mcc: qris.mcc.optional(),
  qrisProvider: z.string().max(64).nullable().optional(),
  retrySchedule: retrySchedule.optional(),
});

export const patchSchema = z
  .strictObject({
    name: text(100).optional(),
    callbackBaseUrl: url.nullable().optional(),
    qrisCallbackUrl: url.nullable().optional(),
    vaCallbackUrl: url.nullable().optional(),
    partnerId: createSchema.shape.partnerId,
    publicKeyPem: pem.nullable().optional(),
    tokenSignature: tokenSignature.optional(),
    callbackSignature: callbackSignature.optional(),
    callbackJson: callbackJson.optional(),
    callbackTokenUrl: url.nullable().optional(),
    merchantName: qris.merchantName.optional(),
    merchantCity: qris.merchantCity.optional(),
    nmid: qris.nmid.optional(),
    mcc: qris.mcc.optional(),
    qrisProvider: z.string().max(64).nullable().optional(),
    retrySchedule: retrySchedule.nullable().optional(),
    status: z.enum(['active', 'disabled']).optional(),
  })
  .refine((p) => Object.keys(p).length > 0, 'at least one field is required');

export function adminMerchantRoutes(app: FastifyInstance, deps: { merchants: MerchantService }) {
  const { merchants } = deps;
  const config = { api: 'admin' as const };

  app.post('/merchants', { config }, async (request, reply) => {
    const input = parseAdminBody(request, createSchema);
    const { merchant, clientSecret } = await merchants.create(input);
    return reply.code(201).send({ ...merchantView(merchant), clientSecret });
  });

  app.get('/merchants', { config }, async (request) => {
    const q = parseWith(listQuery, request.query, 'invalid query');
    const page = await merchants.list({ limit: q.limit, cursor: q.cursor });
    return { items: page.items.map(merchantView), nextCursor: page.nextCursor };
  });

  app.get('/merchants/:id', { config }, async (request) => {
    const { id } = parseWith(idParams, request.params, 'invalid path');
    return merchantView(await merchants.get(id));
  });

  app.patch('/merchants/:id', { config }, async (request) => {
    const { id } = parseWith(idParams, request.params, 'invalid path');
    const patch = parseAdminBody(request, patchSchema);
    return merchantView(await merchants.update(id, patch));
  });

  app.post('/merchants/:id/rotate-secret', { config }, async (request) => {
    const { id } = parseWith(idParams, request.params, 'invalid path');
    const { overlapSec } = parseAdminBody(request, rotateSchema, true);
    const r = await merchants.rotateSecret(id, overlapSec ?? 86_400);
    return { clientSecret: r.clientSecret, previousValidUntil: new Date(r.previousValidUntil).toISOString() };
  });
}
