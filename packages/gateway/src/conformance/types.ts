// The shapes shared by the conformance scenarios, the runner and the reports.

/** One SNAP operation under test: where it lives and its two-digit service code. */
export interface Operation {
  /** Also the name of its scenario file and of its JUnit test suite: `qris-generate`. */
  name: string;
  method: 'POST' | 'PUT' | 'DELETE';
  /** Path under the server's base URL. */
  path: string;
  /** The service code in every responseCode of this operation (`47` in `2004700`). */
  service: string;
  /** True for the B2B token endpoint (signed with the client key, not with a bearer token). */
  token?: boolean;
}

/**
 * What a scenario sends. Everything not given is made correctly: a fresh timestamp, a fresh
 * numeric X-EXTERNAL-ID, a valid token and signature, the standard headers.
 */
export interface ScenarioRequest {
  /** A JSON value, serialised once (compact) and sent as those bytes. */
  body?: unknown;
  /** Exact body text, sent as is (wins over `body`). */
  raw?: string;
  /** Header overrides by lower-case name; `null` removes the header. */
  headers?: Record<string, string | null>;
  /** `wrong`: a well-formed base64 signature over another string to sign. */
  signature?: 'valid' | 'wrong';
  /** Payment calls: `none` sends no Authorization header, `invalid` a token the server never issued. */
  token?: 'valid' | 'none' | 'invalid';
  /** Payment calls: reuse this X-EXTERNAL-ID instead of a fresh one. */
  externalId?: string;
  /** X-TIMESTAMP to send (and sign) instead of now. */
  timestamp?: string;
}

/** A parsed answer body (a JSON object). */
export type AnswerBody = Record<string, unknown>;

export interface Expectation {
  /** Accepted HTTP status(es); the responseCode must start with the one received. */
  status: number | number[];
  /** Accepted case codes (the last two digits); absent: any case of that status and service. */
  cases?: string[];
  /** The answer must repeat, byte for byte and with the same status, that earlier scenario's answer. */
  sameAs?: string;
  /** Fields that must come back with these values: dotted path → value (`virtualAccountData.trxId`). */
  echo?: (ctx: ConformanceContext) => Record<string, unknown>;
  /** A further check; returns the problem in plain words, or undefined when fine. */
  check?: (body: AnswerBody, ctx: ConformanceContext) => string | undefined;
  /** Keeps what later scenarios need (after every other check passed). */
  save?: (body: AnswerBody, ctx: ConformanceContext) => void;
}

/** One row: a request and what a conforming server answers to it. */
export interface Scenario {
  /** Stable and unique across the run: `qris-generate-missing-amount`. */
  id: string;
  title: string;
  kind: 'positive' | 'negative';
  request: (ctx: ConformanceContext) => ScenarioRequest;
  expect: Expectation;
}

/** What an earlier scenario sent, so that a later one can repeat it. */
export interface SentRequest {
  externalId: string | undefined;
  raw: string;
}

/** State shared by the rows of one run. */
export interface ConformanceContext {
  /** Unique to this run; rows put it in their references so that runs never collide. */
  readonly run: string;
  readonly clientKey: string;
  readonly partnerId: string;
  readonly channelId: string;
  /** Values saved by earlier rows (`qrisReferenceNo`, `virtualAccountNo`, …). */
  readonly values: Record<string, string>;
  /** A saved value; a row that needs a missing one is failed as "not run". */
  need(key: string): string;
  /** What an earlier scenario sent; fails the row as "not run" when that scenario sent nothing. */
  sent(scenarioId: string): SentRequest;
}

/** Thrown by `need`/`sent`: the row depends on an earlier one that did not pass. */
export class MissingState extends Error {}
