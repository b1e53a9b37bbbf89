import type { FastifyInstance } from 'fastify';
import type { OperatorPages } from '../operator.ts';

/** A merchant's webhook certification runs and conformance runs. */
export function certificationPages(_op: FastifyInstance, _pages: OperatorPages): void {}
