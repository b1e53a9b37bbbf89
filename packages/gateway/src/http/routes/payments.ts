import { SERVICE } from '@snapgate/snap';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../clock.ts';
import { type SnapResponse, withIdempotency } from '../../payments/idempotency.ts';
import type { QrisService } from '../../payments/qris-service.ts';
import type { MerchantRequest } from '../../payments/snap-request.ts';
import type { VaService } from '../../payments/va-service.ts';
import type { Store } from '../../store/store.ts';
import type { TokenService } from '../../tokens/token-service.ts';
import { merchantRequestOf, snapGuard } from '../snap-auth.ts';

const BASE = '/api/snap/v1.0';

type Operation = {
  method: 'POST' | 'PUT' | 'DELETE';
  path: string;
  serviceCode: string;
  name: string;
  writes: boolean;
  run: (ctx: MerchantRequest, recordFor: Parameters<Parameters<typeof withIdempotency>[2]>[0]) => Promise<SnapResponse>;
};

export function paymentRoutes(
  app: FastifyInstance,
  deps: { store: Store; tokens: TokenService; clock: Clock; qris: QrisService; va: VaService },
) {
  const { store, qris, va } = deps;
  const guard = snapGuard({ tokens: deps.tokens, clock: deps.clock });
  const operations: Operation[] = [
    {
      method: 'POST',
      path: 'qr/qr-mpm-generate',
      serviceCode: SERVICE.qrisGenerate,
      name: 'qr-mpm-generate',
      writes: true,
      run: (c, r) => qris.generate(c, r),
    },
    {
      method: 'POST',
      path: 'qr/qr-mpm-query',
      serviceCode: SERVICE.qrisQuery,
      name: 'qr-mpm-query',
      writes: false,
      run: (c) => qris.query(c),
    },
    {
      method: 'POST',
      path: 'qr/qr-mpm-cancel',
      serviceCode: SERVICE.qrisCancel,
      name: 'qr-mpm-cancel',
      writes: true,
      run: (c, r) => qris.cancel(c, r),
    },
    {
      method: 'POST',
      path: 'qr/qr-mpm-refund',
      serviceCode: SERVICE.qrisRefund,
      name: 'qr-mpm-refund',
      writes: true,
      run: (c, r) => qris.refund(c, r),
    },
    {
      method: 'POST',
      path: 'transfer-va/create-va',
      serviceCode: SERVICE.vaCreate,
      name: 'create-va',
      writes: true,
      run: (c, r) => va.create(c, r),
    },
    {
      method: 'POST',
      path: 'transfer-va/inquiry-va',
      serviceCode: SERVICE.vaInquiry,
      name: 'inquiry-va',
      writes: false,
      run: (c) => va.inquiry(c),
    },
    {
      method: 'POST',
      path: 'transfer-va/status',
      serviceCode: SERVICE.vaInquiryStatus,
      name: 'va-status',
      writes: false,
      run: (c) => va.status(c),
    },
    {
      method: 'PUT',
      path: 'transfer-va/update-va',
      serviceCode: SERVICE.vaUpdate,
      name: 'update-va',
      writes: true,
      run: (c, r) => va.update(c, r),
    },
    {
      method: 'DELETE',
      path: 'transfer-va/delete-va',
      serviceCode: SERVICE.vaDelete,
      name: 'delete-va',
      writes: true,
      run: (c, r) => va.remove(c, r),
    },
  ];

  for (const op of operations) {
    app.route({
      method: op.method,
      url: `${BASE}/${op.path}`,
      config: { api: 'snap', serviceCode: op.serviceCode, operation: op.name },
      preHandler: guard,
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const ctx = merchantRequestOf(request);
        const r = await withIdempotency(store, ctx, (recordFor) => op.run(ctx, recordFor), { writes: op.writes });
        return reply.code(r.httpStatus).type('application/json').send(r.body);
      },
    });
  }
}
