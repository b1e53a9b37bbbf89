// Admin API errors are RFC 9457 problem details; only the error handler writes them.
export class ProblemError extends Error {
  readonly status: number;
  readonly title: string;
  readonly errors: string[] | undefined;
  /** RFC 9457 extension members, e.g. the SNAP code of a refused sandbox payment. */
  snap: Record<string, unknown> | undefined;
  constructor(status: number, title: string, detail?: string, errors?: string[]) {
    super(detail ?? title);
    this.name = 'ProblemError';
    this.status = status;
    this.title = title;
    this.errors = errors;
  }
}

export const notFound = (what: string) => new ProblemError(404, 'Not Found', `${what} not found`);
export const badRequest = (detail: string, errors?: string[]) => new ProblemError(400, 'Bad Request', detail, errors);
export const conflict = (detail: string) => new ProblemError(409, 'Conflict', detail);
