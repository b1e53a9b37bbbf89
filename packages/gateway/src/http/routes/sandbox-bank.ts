import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  type BankAnswer,
  type BankRequest,
  SANDBOX_BANK_PREFIX,
  SANDBOX_BANK_TOKEN_PATH,
  SANDBOX_TOKEN_SERVICE,
  type SandboxBank,
} from '../../providers/sandbox-bank.ts';
import { TRANSFER_CREDIT_PATHS, type TransferCreditService } from '../../providers/transfer-credit.ts';
import { headerValue, rawBodyOf } from '../raw-body.ts';

const requestOf = (request: FastifyRequest): BankRequest => ({
  method: request.method,
  url: request.url,
  header: (name) => headerValue(request, name),
  rawBody: rawBodyOf(request),
});

const send = (reply: FastifyReply, a: BankAnswer) =>
  reply
    .code(a.httpStatus)
    .headers(a.headers ?? {})
    .type('application/json')
    .send(JSON.stringify(a.body));

/**
 * The built-in sandbox bank's Transfer Credit API (sandbox mode only): the payout bank the gateway
 * calls over HTTP, as it calls a real one (docs/payouts.md). A bank's API, not snapgate's: it is in
 * neither OpenAPI document. Its refusals are SNAP bodies, as a bank's.
 */
export function sandboxBankRoutes(app: FastifyInstance, deps: { bank: SandboxBank }) {
  const { bank } = deps;
  app.post(
    SANDBOX_BANK_TOKEN_PATH,
    { config: { api: 'snap', serviceCode: SANDBOX_TOKEN_SERVICE } },
    async (request, reply) => send(reply, await bank.issueToken(requestOf(request))),
  );
  for (const [service, path] of Object.entries(TRANSFER_CREDIT_PATHS) as Array<[TransferCreditService, string]>) {
    app.post(
      `${SANDBOX_BANK_PREFIX}/${path}`,
      { config: { api: 'snap', serviceCode: service } },
      async (request, reply) => send(reply, await bank.serve(service, requestOf(request))),
    );
  }
}
