import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../clock.ts';
import { findCheckout } from '../../payments/checkout-link.ts';
import type { QrImages } from '../../payments/qr-image.ts';
import type { Store } from '../../store/store.ts';
import { addressKey, type RateLimiter } from '../../tokens/rate-limit.ts';
import { closed, json, type Operation } from '../openapi/kit.ts';
import { documentedRoute, type RouteDocs } from '../openapi/route-docs.ts';
import { TAG } from '../openapi/snap-kit.ts';

const notFound = JSON.stringify({ type: 'about:blank', title: 'Not Found', status: 404 });
const CACHING = 'public, max-age=86400, immutable';

/**
 * `qrUrl` (docs/protocol.md#qris): the QR of a QRIS as an image, under its checkout's random id
 * (`/pay/<checkoutId>/qr.png` or `.svg`), never under a reference a payer could count through.
 * Public: the content is what a payer scans. Rendering costs milliseconds of CPU, so each image is
 * rendered once (shared with the checkout page), served with caching headers and an ETag, and
 * every client address is held to `SNAPGATE_QR_RATE_LIMIT` requests a minute.
 */
export function qrImageRoutes(
  app: FastifyInstance,
  deps: { store: Store; clock: Clock; limiter: RateLimiter; images: QrImages; docs: RouteDocs },
) {
  documentedRoute<{ Params: { id: string; format: string } }>(app, deps.docs, {
    method: 'get',
    url: '/pay/:id/qr.:format',
    config: { api: 'admin' },
    operation: qrImageOperation(),
    handler: async (request, reply) => {
      if (!deps.limiter.take(addressKey(request.ip), deps.clock.now())) {
        const now = deps.clock.now();
        return reply
          .code(429)
          .header('retry-after', String(Math.ceil((60_000 - (now % 60_000)) / 1000)))
          .type('application/problem+json')
          .send(JSON.stringify({ type: 'about:blank', title: 'Too Many Requests', status: 429 }));
      }
      const { id, format } = request.params;
      if (format !== 'png' && format !== 'svg') return reply.code(404).type('application/problem+json').send(notFound);
      const etag = `"${id}.${format}"`;
      let image = deps.images.cached(id, format);
      if (image && request.headers['if-none-match'] === etag) {
        return reply.code(304).header('etag', etag).header('cache-control', CACHING).send();
      }
      if (!image) {
        const txn = await findCheckout(deps.store, id);
        const content = txn?.kind === 'qris' ? txn.details.qrContent : '';
        if (content !== '') image = format === 'svg' ? deps.images.svg(id, content) : deps.images.png(id, content);
      }
      if (!image) return reply.code(404).type('application/problem+json').send(notFound);
      reply.header('cache-control', CACHING).header('etag', etag);
      return reply.type(format === 'svg' ? 'image/svg+xml' : 'image/png').send(await image);
    },
  });
}

/** What the SNAP document says of the QR image's route. */
function qrImageOperation(): Operation {
  const caching = {
    'Cache-Control': { schema: { type: 'string', const: CACHING } },
    ETag: { description: 'Send back as `If-None-Match`.', schema: { type: 'string' } },
  };
  return {
    operationId: 'qrImage',
    tags: [TAG.public],
    summary: 'A QRIS as an image',
    description:
      'The `qrUrl` of a generated QRIS: its QR code as PNG or SVG, under the checkout id of its hosted page. Public: it shows only what a payer scans. Each client address is held to `SNAPGATE_QR_RATE_LIMIT` requests a minute.',
    security: [],
    parameters: [
      {
        name: 'id',
        in: 'path',
        required: true,
        description: 'The checkout id of the QRIS (the last part of its `checkoutUrl`).',
        schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{22}$' },
        example: '3q2-7wEGZ0mJ1y5b_8kQxA',
      },
      {
        name: 'format',
        in: 'path',
        required: true,
        description: 'The image format.',
        schema: { type: 'string', enum: ['png', 'svg'] },
        example: 'png',
      },
      {
        name: 'If-None-Match',
        in: 'header',
        required: false,
        description: 'The `ETag` of an earlier answer: 304 when this gateway still holds the image.',
        schema: { type: 'string' },
      },
    ],
    responses: {
      '200': {
        description: 'The image; cacheable for a day (it never changes).',
        headers: caching,
        content: {
          'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } },
          'image/svg+xml': { schema: { type: 'string', contentMediaType: 'image/svg+xml' } },
        },
      },
      '304': { description: 'Not modified: the `If-None-Match` image is still this one.', headers: caching },
      '404': {
        description: 'No QRIS with that checkout id.',
        content: json(
          closed({ type: { const: 'about:blank' }, title: { const: 'Not Found' }, status: { const: 404 } }),
          { example: { value: { type: 'about:blank', title: 'Not Found', status: 404 } } },
          'application/problem+json',
        ),
      },
      '429': {
        description: 'Too many images for this client address this minute.',
        headers: {
          'Retry-After': {
            description: 'Seconds until the next minute.',
            required: true,
            schema: { type: 'string', pattern: '^\\d+$' },
          },
        },
        content: json(
          closed({ type: { const: 'about:blank' }, title: { const: 'Too Many Requests' }, status: { const: 429 } }),
          { example: { value: { type: 'about:blank', title: 'Too Many Requests', status: 429 } } },
          'application/problem+json',
        ),
      },
    },
  };
}
