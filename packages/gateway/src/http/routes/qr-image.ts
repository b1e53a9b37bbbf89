import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../clock.ts';
import { renderQrPng, renderQrSvg } from '../../payments/qr-image.ts';
import type { Store } from '../../store/store.ts';
import { addressKey, type RateLimiter } from '../../tokens/rate-limit.ts';
import { closed, json, type PathItem } from '../openapi/kit.ts';
import { TAG } from '../openapi/snap-kit.ts';

/** Rendered images kept in memory: a QR's content never changes, so each is rendered once. */
const CACHE_ENTRIES = 2048;

const notFound = JSON.stringify({ type: 'about:blank', title: 'Not Found', status: 404 });

/**
 * `qrUrl` (docs/protocol.md#qris): the QR of a QRIS as an image. Public: the content is what a
 * payer scans. Rendering costs milliseconds of CPU, so each image is rendered once (concurrent
 * requests share the rendering), served with caching headers and an ETag, and every client
 * address is held to `SNAPGATE_QR_RATE_LIMIT` requests a minute.
 */
export function qrImageRoutes(app: FastifyInstance, deps: { store: Store; clock: Clock; limiter: RateLimiter }) {
  const rendered = new Map<string, Promise<Buffer | string>>();
  const render = (key: string, kind: 'png' | 'svg', content: string) => {
    const hit = rendered.get(key);
    if (hit) {
      // Least recently used goes first: a hit moves to the end.
      rendered.delete(key);
      rendered.set(key, hit);
      return hit;
    }
    const image = kind === 'svg' ? renderQrSvg(content) : renderQrPng(content);
    rendered.set(key, image);
    image.catch(() => rendered.delete(key));
    if (rendered.size > CACHE_ENTRIES) rendered.delete(rendered.keys().next().value as string);
    return image;
  };

  app.get<{ Params: { file: string } }>('/qr/:file', { config: { api: 'admin' } }, async (request, reply) => {
    if (!deps.limiter.take(addressKey(request.ip), deps.clock.now())) {
      const now = deps.clock.now();
      return reply
        .code(429)
        .header('retry-after', String(Math.ceil((60_000 - (now % 60_000)) / 1000)))
        .type('application/problem+json')
        .send(JSON.stringify({ type: 'about:blank', title: 'Too Many Requests', status: 429 }));
    }
    const m = /^([A-Za-z0-9]{1,64})\.(png|svg)$/.exec(request.params.file);
    const key = m ? `${m[1]}.${m[2]}` : '';
    const etag = `"${key}"`;
    if (m && request.headers['if-none-match'] === etag && rendered.has(key)) {
      return reply.code(304).header('etag', etag).header('cache-control', 'public, max-age=86400, immutable').send();
    }
    let image = m ? rendered.get(key) : undefined;
    if (m && !image) {
      const txn = await deps.store.findTransaction(m[1] as string);
      const content = txn?.kind === 'qris' ? txn.details.qrContent : undefined;
      if (content) image = render(key, m[2] as 'png' | 'svg', content);
    }
    if (!m || !image) return reply.code(404).type('application/problem+json').send(notFound);
    reply.header('cache-control', 'public, max-age=86400, immutable').header('etag', etag);
    return reply.type(m[2] === 'svg' ? 'image/svg+xml' : 'image/png').send(await image);
  });
}

/** The OpenAPI path item of this route (http/openapi/snap-document.ts assembles it). */
export function qrImagePaths(): Record<string, PathItem> {
  const caching = {
    'Cache-Control': { schema: { type: 'string', const: 'public, max-age=86400, immutable' } },
    ETag: { description: 'Send back as `If-None-Match`.', schema: { type: 'string' } },
  };
  return {
    '/qr/{file}': {
      get: {
        operationId: 'qrImage',
        tags: [TAG.public],
        summary: 'A QRIS as an image',
        description:
          'The `qrUrl` of a generated QRIS: its QR code as PNG or SVG. Public: it shows only what a payer scans. Each client address is held to `SNAPGATE_QR_RATE_LIMIT` requests a minute.',
        security: [],
        parameters: [
          {
            name: 'file',
            in: 'path',
            required: true,
            description: 'The QRIS `referenceNo` and the image format.',
            schema: { type: 'string', pattern: '^[A-Za-z0-9]{1,64}\\.(png|svg)$' },
            example: '260115123456789012.png',
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
            description: 'No QRIS with that reference, or not an image name.',
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
      },
    },
  };
}
