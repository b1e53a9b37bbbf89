import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { bearerToken } from './bearer.ts';
import { ProblemError } from './problem.ts';

const sha256 = (s: string) => createHash('sha256').update(s).digest();

/** An onRequest hook that accepts `Authorization: Bearer <admin token>`, compared in constant time by hash. */
export function adminAuth(adminTokenSha256Hex: string) {
  const expected = Buffer.from(adminTokenSha256Hex, 'hex');
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    const token = bearerToken(request.headers.authorization);
    if (!token || !timingSafeEqual(sha256(token), expected)) {
      throw new ProblemError(401, 'Unauthorized', 'a valid admin bearer token is required');
    }
  };
}

export const hashAdminToken = (token: string) => sha256(token).toString('hex');
