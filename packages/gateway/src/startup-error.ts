/** A start-up failure said in one line: what went wrong, and what to do about it. */
export class StartupError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StartupError';
  }
}

/** The operating system's reason, without Node's decorations: `EACCES: permission denied`. */
export function reasonOf(e: unknown): string {
  const err = e as { code?: unknown; message?: unknown };
  const message = (typeof err?.message === 'string' ? err.message : String(e)).split('\n')[0] ?? '';
  return typeof err?.code === 'string' && !message.includes(err.code) ? `${err.code}: ${message}` : message;
}
