import type { FastifyInstance, FastifyRequest } from 'fastify';

export const BODY_LIMIT_BYTES = 64 * 1024;

// Signatures cover the raw bytes received (docs/protocol.md#payment-calls), and a bad Content-Type or body must
// get its SNAP error at its place in the check order: keep every body as a Buffer and
// let the route decide.
const ORIGINAL_CONTENT_TYPE = Symbol('snapgate.contentType');
type WithContentType = FastifyRequest & { [ORIGINAL_CONTENT_TYPE]?: string | undefined };

export function registerRawBody(app: FastifyInstance): void {
  // Fastify refuses an empty or malformed Content-Type before any route runs; docs/protocol.md#access-token wants
  // those answered as 4007102 / 4007101 in their place. Keep the header as sent and let
  // every body through as bytes.
  app.addHook('onRequest', (request, _reply, done) => {
    const ct = request.headers['content-type'];
    (request as WithContentType)[ORIGINAL_CONTENT_TYPE] = typeof ct === 'string' ? ct : undefined;
    if (ct !== undefined) request.headers['content-type'] = 'application/octet-stream';
    done();
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT_BYTES }, (_req, body, done) => {
    done(null, body);
  });
}

const EMPTY = Buffer.alloc(0);

export function rawBodyOf(request: FastifyRequest): Buffer {
  return Buffer.isBuffer(request.body) ? request.body : EMPTY;
}

/** A single header value; a repeated header counts as malformed, not as its first copy. */
export function headerValue(request: FastifyRequest, name: string): string | undefined {
  if (name === 'content-type') return (request as WithContentType)[ORIGINAL_CONTENT_TYPE];
  const v = request.headers[name];
  return typeof v === 'string' ? v : undefined;
}
