import { UniqueViolation } from '../../records/records.ts';
import type { CommitStats } from '../store.ts';
import type { WriteRequest } from './sqlite-writes.ts';

// What the main thread and the writer thread say to each other: plain data only.

/** In the shared flag: the main thread is writing on its own connection. */
export const MAIN_WRITING = 1;

export interface WriterData {
  file: string;
  pageCacheKib: number;
  /** One Int32: MAIN_WRITING while the main thread writes (the writer starts no commit meanwhile). */
  mainWriting: SharedArrayBuffer;
}

export type ToWriter = { type: 'commit'; id: number; requests: WriteRequest[] } | { type: 'close' };

export interface SerializedError {
  name: string;
  message: string;
  code?: string;
  constraint?: string;
  stack?: string;
}

export type WriterOutcome = { ok: true; value: unknown } | { ok: false; error: SerializedError };

export type FromWriter =
  | { type: 'ready' }
  /** `commit` rides on the first batch answered after a commit, once per commit. */
  | { type: 'done'; id: number; outcomes: WriterOutcome[]; commit?: CommitStats }
  | { type: 'failed'; id: number; error: SerializedError }
  | { type: 'closed' };

export function serializeError(e: unknown): SerializedError {
  if (e instanceof UniqueViolation) return { name: e.name, message: e.message, constraint: e.constraint };
  const err = e instanceof Error ? e : new Error(String(e));
  const code = (err as { code?: unknown }).code;
  return {
    name: err.name,
    message: err.message,
    ...(typeof code === 'string' ? { code } : {}),
    ...(err.stack ? { stack: err.stack } : {}),
  };
}

/** The error as the store's callers know it: a UniqueViolation stays one; SQLite's code is kept. */
export function deserializeError(s: SerializedError): Error {
  if (s.constraint !== undefined) return new UniqueViolation(s.constraint);
  const e = new Error(s.message) as Error & { code?: string };
  e.name = s.name;
  if (s.code !== undefined) e.code = s.code;
  // Where it was thrown in the writer thread, then where the main thread received it.
  if (s.stack)
    e.stack = `${s.stack}\n    --- in the SQLite writer thread; received at:\n${(e.stack ?? '').split('\n').slice(1).join('\n')}`;
  return e;
}
