import type { IncomingMessage, ServerResponse } from 'node:http';
import { SERVICE, snapError } from '@snapgate/snap';
import { type CallbackHandler, type CallbackResult, readRawBody, writeResult } from './callback-handler.ts';
import type { CallbackRequest, HeadersLike } from './verify-callback.ts';

/**
 * The suggested callback paths, QRIS, VA, then e-wallet (where an e-wallet payment's callbacks go
 * unless it names its own `PAY_NOTIFY` url).
 *
 * @example
 * for (const path of CALLBACK_PATHS) server.post(path, toExpress(handler));
 */
export const CALLBACK_PATHS = [
  '/webhook/payment-qr-notification',
  '/webhook/payment-va-notification',
  '/v1.0/debit/notify',
] as const;

/**
 * Where the gateway posts transfer callbacks under the callback base URL, unless the operator set
 * a `transferCallbackUrl` (docs/protocol.md#transfer-callbacks).
 *
 * @example
 * app.post(TRANSFER_CALLBACK_PATH, toExpress(createTransferCallbackHandler(options)));
 */
export const TRANSFER_CALLBACK_PATH = '/v1.0/transfer/notify';

/**
 * An Express request as the adapter needs it: node's request, plus what Express adds.
 *
 * @example
 * const req: ExpressRequestLike = expressReq;
 */
export type ExpressRequestLike = IncomingMessage & { originalUrl?: string; body?: unknown };

/**
 * An Express middleware, typed structurally (the SDK does not depend on Express).
 *
 * @example
 * const mw: ExpressMiddleware = toExpress(handler);
 */
export type ExpressMiddleware = (req: ExpressRequestLike, res: ServerResponse, next: (error?: unknown) => void) => void;

/**
 * What the adapters mount: a callback handler (payments or transfers), or a `snap-b2b` token issuer.
 *
 * @example
 * const h: RequestHandlerLike = createCallbackHandler(options);
 */
export type RequestHandlerLike = Pick<CallbackHandler, 'maxBodyBytes'> & {
  handle(request: CallbackRequest): Promise<Pick<CallbackResult, 'httpStatus' | 'body'>>;
};

/**
 * Mounts a callback handler in Express, keeping the raw body: mount it before `express.json()`,
 * or behind `express.raw({ type: 'application/json' })` (a Buffer `req.body` is used as is). A
 * body that another parser already consumed cannot be verified: that is a setup mistake, passed
 * to `next` as a TypeError. The signed path is `req.originalUrl`, the target as received.
 *
 * @example
 * app.post('/webhook/payment-qr-notification', toExpress(handler));
 * app.post('/webhook/payment-va-notification', toExpress(handler));
 */
export function toExpress(handler: RequestHandlerLike): ExpressMiddleware {
  return (req, res, next) => {
    const parsed = req.body;
    const given = typeof parsed === 'string' || parsed instanceof Uint8Array ? parsed : undefined;
    if (given === undefined && req.readableEnded) {
      next(new TypeError('toExpress: the body was already parsed; mount the callback route before express.json()'));
      return;
    }
    const raw = given === undefined ? readRawBody(req, handler.maxBodyBytes) : Promise.resolve(given);
    raw
      .then(async (rawBody) => {
        if (rawBody === undefined) {
          writeResult(res, { httpStatus: 400, body: snapError('BAD_REQUEST', SERVICE.callback).toBody() });
          return;
        }
        const path = req.originalUrl ?? req.url ?? '';
        writeResult(res, await handler.handle({ method: req.method ?? '', path, headers: req.headers, rawBody }));
      })
      .catch(next);
  };
}

/**
 * A Fastify request as the plugin needs it.
 *
 * @example
 * const req: FastifyRequestLike = fastifyRequest;
 */
export interface FastifyRequestLike {
  method: string;
  url: string;
  headers: HeadersLike;
  body: unknown;
}

/**
 * A Fastify reply as the plugin needs it.
 *
 * @example
 * const reply: FastifyReplyLike = fastifyReply;
 */
export interface FastifyReplyLike {
  code(statusCode: number): FastifyReplyLike;
  type(contentType: string): FastifyReplyLike;
  send(payload: string): unknown;
}

/**
 * A Fastify instance as the plugin needs it, typed structurally (no Fastify dependency).
 *
 * @example
 * const app: FastifyLike = Fastify();
 */
export interface FastifyLike {
  removeContentTypeParser(contentType: string): unknown;
  addContentTypeParser(
    contentType: string,
    options: { parseAs: 'buffer'; bodyLimit?: number },
    parser: (request: never, body: Buffer, done: (error: Error | null, body?: Buffer) => void) => void,
  ): unknown;
  post(path: string, handler: (request: FastifyRequestLike, reply: FastifyReplyLike) => Promise<unknown>): unknown;
}

/**
 * A Fastify plugin serving the callback paths with a callback handler. Inside the plugin (an
 * encapsulated context) JSON bodies are kept as raw bytes, so the rest of the app still parses
 * JSON as usual. A `prefix` given to `register` is part of the signed path, as received.
 *
 * @example
 * app.register(fastifyCallbackPlugin(handler));
 * app.register(fastifyCallbackPlugin(handler, { paths: ['/payments/callback'] }), { prefix: '/shop' });
 * app.register(fastifyCallbackPlugin(transferHandler, { paths: [TRANSFER_CALLBACK_PATH] }));
 */
export function fastifyCallbackPlugin(
  handler: RequestHandlerLike,
  options: { paths?: readonly string[] } = {},
): (app: FastifyLike) => Promise<void> {
  const paths = options.paths ?? CALLBACK_PATHS;
  return async (app) => {
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser(
      'application/json',
      { parseAs: 'buffer', bodyLimit: handler.maxBodyBytes },
      (_request, body, done) => done(null, body),
    );
    for (const path of paths) {
      app.post(path, async (request, reply) => {
        const rawBody = request.body instanceof Uint8Array ? request.body : Buffer.alloc(0);
        const r = await handler.handle({
          method: request.method,
          path: request.url,
          headers: request.headers,
          rawBody,
        });
        return reply.code(r.httpStatus).type('application/json').send(JSON.stringify(r.body));
      });
    }
  };
}
