// Errors the domain services throw for an operator's request (admin API, CLI, console). They say
// what is wrong in the domain's words; `http/error-handler.ts` maps them to problem+json.

export type DomainErrorKind = 'invalid' | 'not-found' | 'conflict';

export class DomainError extends Error {
  readonly kind: DomainErrorKind;
  /** Every problem found at once, each naming its field. */
  readonly problems: string[] | undefined;
  constructor(kind: DomainErrorKind, detail: string, problems?: string[]) {
    super(detail);
    this.name = 'DomainError';
    this.kind = kind;
    this.problems = problems;
  }
}

export const invalid = (detail: string, problems?: string[]) => new DomainError('invalid', detail, problems);
export const notFound = (what: string) => new DomainError('not-found', `${what} not found`);
export const conflict = (detail: string) => new DomainError('conflict', detail);
