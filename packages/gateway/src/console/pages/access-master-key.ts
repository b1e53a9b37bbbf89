import type { FastifyInstance } from 'fastify';
import { html } from '../../web/html.ts';
import { accessTabs, MASTER_KEY_HREF, masterKeyTable, notUnderCurrent, resealSection } from '../access-views.ts';
import { config, type OperatorPages } from '../operator.ts';

const STATUS = '/admin/v1/keys';
const ROTATE = '/admin/v1/keys/rotate';

/**
 * The master keys (docs/operations.md#rotating-the-master-key): which key is current, which are
 * configured, how many stored secrets each seals, and re-sealing them all under the current key,
 * through the service the admin API's GET /keys and POST /keys/rotate call.
 */
export function masterKeyPages(op: FastifyInstance, pages: OperatorPages): void {
  const { masterKeys } = pages.deps;

  op.get('/access/master-key', { config }, async (request, reply) => {
    pages.need(request, 'GET', STATUS);
    const status = await masterKeys.status();
    return pages.page(
      request,
      reply,
      'Master keys',
      'access',
      html`<h1>Access</h1>
${accessTabs('master-key', true)}
<section class="card"><h2>Master keys</h2>
<p>New secrets are sealed under the current key <code id="current-key">${status.currentKeyId}</code>. A key id is the start of the key’s SHA-256: it names the key without revealing it.</p>
${masterKeyTable(status)}</section>
${resealSection(status, pages.can(request, 'POST', ROTATE) ? pages.operatorOf(request).csrf : undefined)}`,
    );
  });

  op.post('/access/master-key/reseal', { config }, async (request, reply) => {
    pages.need(request, 'POST', ROTATE);
    const before = await masterKeys.status();
    const after = await masterKeys.rotate();
    await pages.audit(request, {
      action: 'console: re-seal secrets',
      target: after.currentKeyId,
      httpStatus: 200,
      // The counts are named so that the audit's redaction (any field named like "secret") leaves them.
      before: { currentKeyId: before.currentKeyId, sealedByKeyId: before.secretsByKeyId },
      after: {
        resealed: after.resealed,
        currentKeyId: after.currentKeyId,
        configuredKeyIds: after.configuredKeyIds,
        sealedByKeyId: after.secretsByKeyId,
      },
    });
    const left = notUnderCurrent(after);
    const n = after.resealed;
    const done =
      n === 0
        ? `Nothing was re-sealed: every stored secret was already sealed under the current key ${after.currentKeyId}.`
        : `Re-sealed ${n} ${n === 1 ? 'secret' : 'secrets'} under the current key ${after.currentKeyId}.`;
    const next =
      left === 0
        ? ' Every stored secret is sealed under it now: the instances can be restarted without SNAPGATE_MASTER_KEY_PREVIOUS.'
        : ` ${left} ${left === 1 ? 'secret is' : 'secrets are'} still under another key (see the table).`;
    return pages.done(request, reply, MASTER_KEY_HREF, done + next);
  });
}
