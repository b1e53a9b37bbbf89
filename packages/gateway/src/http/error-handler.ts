import { isSnapError, snapError } from '@snapgate/snap';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../domain-error.ts';
import type { Logger } from '../logger.ts';
import { isUnsettledLimitError, MAX_UNSETTLED } from '../payments/money-bounds.ts';
import { DatabaseTimeout } from '../records/records.ts';
import { ProblemError } from './problem.ts';

// The only writer of error bodies. SNAP routes answer {responseCode, responseMessage};
// admin routes answer problem+json. Nothing answers with a stack.
function isAdmin(request: FastifyRequest): boolean {
  return request.routeOptions.config?.api === 'admin' || request.url.startsWith('/admin/');
}

function sendProblem(
  reply: FastifyReply,
  status: number,
  title: string,
  detail?: string,
  errors?: string[],
  extensions?: Record<string, unknown>,
) {
  const body: Record<string, unknown> = { type: 'about:blank', title, status };
  if (detail !== undefined) body.detail = detail;
  if (errors !== undefined) body.errors = errors;
  if (extensions) Object.assign(body, extensions);
  return reply.code(status).type('application/problem+json').send(JSON.stringify(body));
}

const DOMAIN_STATUS = {
  invalid: [400, 'Bad Request'],
  'not-found': [404, 'Not Found'],
  conflict: [409, 'Conflict'],
  refused: [422, 'Unprocessable Content'],
  unavailable: [502, 'Bad Gateway'],
  forbidden: [403, 'Forbidden'],
} as const;

/**
 * Who made a refused SNAP request and which: the request id, the client key (the token request's
 * X-CLIENT-KEY, else the call's X-PARTNER-ID), the path and X-EXTERNAL-ID. Identifiers only: never
 * a token, a signature or a body.
 */
function refusalContext(request: FastifyRequest) {
  const h = request.headers;
  const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  return {
    reqId: request.id,
    path: request.url.split('?')[0],
    clientKey: first(h['x-client-key']) ?? first(h['x-partner-id']),
    externalId: first(h['x-external-id']),
  };
}

export function registerErrorHandler(app: FastifyInstance, logger: Logger): void {
  app.setErrorHandler((error: FastifyError | Error, request, reply) => {
    const serviceCode = request.routeOptions.config?.serviceCode ?? '00';
    if (isAdmin(request)) {
      if (error instanceof ProblemError)
        return sendProblem(reply, error.status, error.title, error.message, error.errors, error.snap);
      if (error instanceof DomainError) {
        const [status, title] = DOMAIN_STATUS[error.kind];
        return sendProblem(reply, status, title, error.message, error.problems, error.snap);
      }
      const status = (error as FastifyError).statusCode;
      if (status !== undefined && status >= 400 && status < 500) {
        return sendProblem(
          reply,
          status === 413 ? 413 : 400,
          status === 413 ? 'Content Too Large' : 'Bad Request',
          error.message,
        );
      }
      if (isUnsettledLimitError(error)) {
        logger.warn({ reqId: request.id, url: request.routeOptions.url }, 'admin request: unsettled limit reached');
        return sendProblem(reply, 409, 'Conflict', UNSETTLED_LIMIT);
      }
      if (isDatabaseTimeout(error)) {
        logger.warn({ reqId: request.id, url: request.routeOptions.url }, 'admin request: the database timed out');
        return sendProblem(reply, 503, 'Service Unavailable', 'the database did not answer in time: try again');
      }
      logger.error({ reqId: request.id, err: error, url: request.routeOptions.url }, 'admin request failed');
      return sendProblem(reply, 500, 'Internal Server Error');
    }
    if (isSnapError(error)) {
      logger.info(
        { ...refusalContext(request), responseCode: error.responseCode, detail: error.detail },
        'snap request refused',
      );
      return reply.code(error.httpStatus).type('application/json').send(JSON.stringify(error.toBody()));
    }
    const status = (error as FastifyError).statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      // Framework refusals (body over 64 KiB, malformed framing): docs/protocol.md#conventions wants 400 xx00, never 413.
      const e = snapError('BAD_REQUEST', serviceCode, { detail: (error as FastifyError).code });
      logger.info(
        { ...refusalContext(request), responseCode: e.responseCode, code: (error as FastifyError).code },
        'snap request refused',
      );
      return reply.code(400).type('application/json').send(JSON.stringify(e.toBody()));
    }
    if (isUnsettledLimitError(error)) {
      // Nothing was written (docs/operations.md#money-bounds): the merchant's next settlement makes room.
      const e = snapError('EXCEEDS_AMOUNT_LIMIT', serviceCode, { detail: UNSETTLED_LIMIT });
      logger.warn({ ...refusalContext(request), responseCode: e.responseCode }, UNSETTLED_LIMIT);
      return reply.code(e.httpStatus).type('application/json').send(JSON.stringify(e.toBody()));
    }
    if (isDatabaseTimeout(error)) {
      // Nothing was written: the client may send the same request again (X-EXTERNAL-ID and all).
      logger.warn(refusalContext(request), 'snap request: the database timed out');
      return reply
        .code(504)
        .type('application/json')
        .send(JSON.stringify(snapError('TIMEOUT', serviceCode).toBody()));
    }
    logger.error({ ...refusalContext(request), err: error }, 'snap request failed');
    return reply
      .code(500)
      .type('application/json')
      .send(JSON.stringify(snapError('GENERAL_ERROR', serviceCode).toBody()));
  });

  app.setNotFoundHandler((request, reply) => {
    if (isAdmin(request))
      return sendProblem(reply, 404, 'Not Found', `no route ${request.method} ${request.url.split('?')[0]}`);
    return reply
      .code(404)
      .type('application/json')
      .send(JSON.stringify({ responseCode: '4040000', responseMessage: 'Not Found' }));
  });
}

/** Fastify errors raised before routing (bad URL encoding and the like). */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  if (request.url?.startsWith('/admin/')) {
    void sendProblem(reply, 400, 'Bad Request', error.message);
    return;
  }
  void reply
    .code(400)
    .type('application/json')
    .send(JSON.stringify({ responseCode: '4000000', responseMessage: 'Bad Request' }));
}

const CLIENT_ERROR_BODY = '{"responseCode":"4000000","responseMessage":"Bad Request"}';

/** Malformed HTTP (bad framing, oversized headers, a request that timed out): a SNAP body, then close. */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: import('node:net').Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // A connection that has sent nothing yet (a browser's preconnect, held past the headers
  // deadline) is closed, not answered: a browser that sends its request on it just then would
  // read our 400 as the answer to that request, and show it (seen with Chromium 156).
  if (socket.bytesRead === 0) {
    socket.destroy();
    return;
  }
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${CLIENT_ERROR_BODY.length}\r\nConnection: close\r\n\r\n${CLIENT_ERROR_BODY}`,
    );
  }
  socket.destroy(error);
}

const UNSETTLED_LIMIT = `the merchant would hold more than ${MAX_UNSETTLED} IDR unsettled: settle it first`;

/** PostgreSQL gave up on a statement (statement or lock timeout), wrapped by the store or not. */
function isDatabaseTimeout(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return error instanceof DatabaseTimeout || code === '57014' || code === '55P03';
}
