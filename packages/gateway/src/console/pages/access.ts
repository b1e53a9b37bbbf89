import type { FastifyInstance } from 'fastify';
import type { OperatorPages } from '../operator.ts';

/** Access: admin keys, the audit log and the master keys. */
export function accessPages(_op: FastifyInstance, _pages: OperatorPages): void {}
