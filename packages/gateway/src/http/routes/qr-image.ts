import type { FastifyInstance } from 'fastify';
import { renderQrPng, renderQrSvg } from '../../payments/qr-image.ts';
import type { Store } from '../../store/store.ts';

/** `qrUrl` (docs/protocol.md#qris): the QR of a QRIS as an image. Public: the content is what a payer scans. */
export function qrImageRoutes(app: FastifyInstance, deps: { store: Store }) {
  app.get<{ Params: { file: string } }>('/qr/:file', { config: { api: 'admin' } }, async (request, reply) => {
    const m = /^([A-Za-z0-9]{1,64})\.(png|svg)$/.exec(request.params.file);
    const txn = m ? await deps.store.findTransaction(m[1] as string) : undefined;
    const content = txn?.kind === 'qris' ? (txn.details.qrContent as string | undefined) : undefined;
    if (!m || !content) {
      return reply
        .code(404)
        .type('application/problem+json')
        .send(JSON.stringify({ type: 'about:blank', title: 'Not Found', status: 404 }));
    }
    reply.header('cache-control', 'public, max-age=86400, immutable');
    if (m[2] === 'svg') return reply.type('image/svg+xml').send(await renderQrSvg(content));
    return reply.type('image/png').send(await renderQrPng(content));
  });
}
