import { SERVICE } from '@snapgate/snap';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../clock.ts';
import type { Mode } from '../../config.ts';
import type { Logger } from '../../logger.ts';
import { withIdempotency } from '../../payments/idempotency.ts';
import type { InboundService } from '../../providers/inbound-service.ts';
import type { InboundCall, Store } from '../../store/store.ts';
import { storableText } from '../../text.ts';
import type { TokenService } from '../../tokens/token-service.ts';
import { rawBodyOf } from '../raw-body.ts';
import { callingProviderOf, providerRequestOf, snapGuard, upstreamWebhookGuard } from '../snap-auth.ts';

const BASE = '/api/snap/v1.0';
/** Bodies kept in the inbound log, like a callback attempt's. */
const LOGGED_BODY_BYTES = 4096;
const RESPONSE_CODE = /"responseCode":"(\d{7})"/;

const ANSWER = Symbol('snapgate.inboundAnswer');
type WithAnswer = FastifyRequest & { [ANSWER]?: string };

/**
 * The provider side of SNAP (banks and acquirers calling snapgate): same guard as the payment
 * API, but only a provider's token opens it, and every call it answers is logged per provider.
 */
export function providerApiRoutes(
  app: FastifyInstance,
  deps: { store: Store; tokens: TokenService; clock: Clock; logger: Logger; inbound: InboundService; mode: Mode },
) {
  const { store, inbound, logger } = deps;
  // The log is written in batches, one transaction per event-loop turn, never in the answer's path.
  let pending: InboundCall[] = [];
  const flush = () => {
    const batch = pending;
    pending = [];
    store
      .recordInbound(batch)
      .catch((err: unknown) => logger.warn({ err, calls: batch.length }, 'inbound log write failed'));
  };
  const log = (call: InboundCall) => {
    if (pending.push(call) === 1) setImmediate(flush);
  };
  const guard = snapGuard({ tokens: deps.tokens, clock: deps.clock, audience: 'provider' });
  const webhookGuard = upstreamWebhookGuard({ store, tokens: deps.tokens, clock: deps.clock, mode: deps.mode });
  const operations = [
    { url: `${BASE}/transfer-va/inquiry`, serviceCode: SERVICE.vaBankInquiry, name: 'va-inquiry', writes: false },
    { url: `${BASE}/transfer-va/payment`, serviceCode: SERVICE.vaPayment, name: 'va-payment', writes: true },
    { url: `${BASE}/qr/qr-mpm-notify`, serviceCode: SERVICE.qrisNotify, name: 'qr-mpm-notify', writes: true },
    // Another snapgate upstream calls back in its own callback form; acknowledged with 2002600.
    {
      url: '/upstream/:providerId/webhook/payment-qr-notification',
      serviceCode: SERVICE.callback,
      name: 'upstream-qr-notification',
      writes: true,
    },
  ] as const;

  for (const op of operations) {
    app.route({
      method: 'POST',
      url: op.url,
      config: { api: 'snap', serviceCode: op.serviceCode, operation: op.name },
      preHandler: op.name === 'upstream-qr-notification' ? webhookGuard : guard,
      onSend: (request, _reply, payload, done) => {
        if (typeof payload === 'string') (request as WithAnswer)[ANSWER] = payload;
        done(null, payload);
      },
      onResponse: (request, reply, done) => {
        const provider = callingProviderOf(request);
        done();
        if (!provider) return;
        const answer = (request as WithAnswer)[ANSWER] ?? '';
        log({
          providerId: provider.id,
          at: deps.clock.now(),
          method: request.method,
          path: request.url,
          requestBody: storableText(rawBodyOf(request).subarray(0, LOGGED_BODY_BYTES).toString('utf8')),
          httpStatus: reply.statusCode,
          responseCode: RESPONSE_CODE.exec(answer)?.[1] ?? null,
          responseBody: storableText(answer.slice(0, LOGGED_BODY_BYTES)),
          durationMs: reply.elapsedTime,
        });
      },
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const ctx = providerRequestOf(request);
        const r = await withIdempotency(
          store,
          ctx,
          (recordFor) => {
            if (op.name === 'va-inquiry') return inbound.vaInquiry(ctx);
            if (op.name === 'va-payment') return inbound.vaPayment(ctx, recordFor);
            return inbound.qrisNotify(ctx, recordFor);
          },
          { writes: op.writes },
        );
        return reply.code(r.httpStatus).type('application/json').send(r.body);
      },
    });
  }
}
