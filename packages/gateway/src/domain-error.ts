// Errors the domain services throw for an operator's request (admin API, CLI, console). They say
// what is wrong in the domain's words; `http/error-handler.ts` maps them to problem+json.

/**
 * `refused`: another party (the payout bank) refused what was asked, and says why in `snap`;
 * `unavailable`: another party did not answer, or not as SNAP; `forbidden`: this caller may not, whatever
 * its scope (the key that asked for a payout approving it).
 */
export type DomainErrorKind = 'invalid' | 'not-found' | 'conflict' | 'refused' | 'unavailable' | 'forbidden';

export class DomainError extends Error {
  readonly kind: DomainErrorKind;
  /** Every problem found at once, each naming its field. */
  readonly problems: string[] | undefined;
  /** The SNAP answer of a refusal (`responseCode`, `responseMessage`), shown as it was. */
  readonly snap: { responseCode: string; responseMessage: string } | undefined;
  constructor(
    kind: DomainErrorKind,
    detail: string,
    problems?: string[],
    snap?: { responseCode: string; responseMessage: string },
  ) {
    super(detail);
    this.name = 'DomainError';
    this.kind = kind;
    this.problems = problems;
    this.snap = snap;
  }
}

export const invalid = (detail: string, problems?: string[]) => new DomainError('invalid', detail, problems);
export const notFound = (what: string) => new DomainError('not-found', `${what} not found`);
export const conflict = (detail: string) => new DomainError('conflict', detail);
/** Another party refused, with its SNAP answer. */
export const refused = (detail: string, problems: string[], snap: { responseCode: string; responseMessage: string }) =>
  new DomainError('refused', detail, problems, snap);
export const unavailable = (detail: string) => new DomainError('unavailable', detail);
export const forbidden = (detail: string) => new DomainError('forbidden', detail);
