// Runs every conformance scenario against a SNAP server and judges each answer.
import { randomInt } from 'node:crypto';
import {
  formatJakartaTimestamp,
  hmacSha256Base64,
  hmacSha512Base64,
  rsaSha256SignBase64,
  serviceStringToSign,
  tokenStringToSign,
} from '@snapgate/snap';
import { request as undiciRequest } from 'undici';
import { OPERATIONS } from './operations.ts';
import {
  type ConformanceReport,
  type RecordedRequest,
  type RecordedResponse,
  type ScenarioResult,
  summarise,
} from './report.ts';
import { at } from './scenarios/common.ts';
import { SUITES, type Suite } from './suites.ts';
import {
  type AnswerBody,
  type ConformanceContext,
  MissingState,
  type Operation,
  type Scenario,
  type ScenarioRequest,
  type SentRequest,
} from './types.ts';

export interface ConformanceOptions {
  /** The server's base URL, without the `/api/snap/v1.0` part: `https://sandbox.example`. */
  url: string;
  clientKey: string;
  /** Signs the token request (HMAC-SHA256, unless a private key is given) and every payment call (HMAC-SHA512). */
  clientSecret?: string;
  /** PEM private key: the token request is signed SHA256withRSA with it. */
  privateKeyPem?: string;
  partnerId: string;
  /** CHANNEL-ID of payment calls; default `95221`. */
  channelId?: string;
  /** Per-request time limit; default 15 000 ms. */
  timeoutMs?: number;
  /** Only these operations (`qris-generate`, …); default all. Rows that need an operation left out fail as not run. */
  only?: string[];
}

const REDACTED = '[redacted]';

/** Checks a SNAP server; resolves to the report (it never throws for what the server answers). */
export async function runConformance(options: ConformanceOptions): Promise<ConformanceReport> {
  if (!options.clientSecret && !options.privateKeyPem) throw new Error('give a client secret or a private key');
  const base = options.url.replace(/\/+$/, '');
  const startedAt = new Date();
  const t0 = performance.now();
  const runner = new Runner(base, options);
  const results: ScenarioResult[] = [];
  const suites = options.only ? SUITES.filter((s) => options.only?.includes(s.operation.name)) : SUITES;
  for (const suite of suites) results.push(...(await runner.suite(suite)));
  return summarise('snap-server-conformance', base, startedAt, Math.round(performance.now() - t0), results);
}

interface Answer {
  status: number;
  text: string;
  headers: Record<string, string>;
}

class Runner {
  private readonly values: Record<string, string> = {};
  private readonly sentById = new Map<string, SentRequest>();
  private readonly answers = new Map<string, Answer>();
  private readonly ctx: ConformanceContext;
  private accessToken: { value: string; until: number } | undefined;
  private seq = 0;

  constructor(
    private readonly base: string,
    private readonly o: ConformanceOptions,
  ) {
    const run = `${Date.now().toString(36).toUpperCase()}${randomInt(1_000_000).toString(36).toUpperCase()}`;
    const values = this.values;
    const sentById = this.sentById;
    this.ctx = {
      run,
      clientKey: o.clientKey,
      partnerId: o.partnerId,
      channelId: o.channelId ?? '95221',
      values,
      need(key) {
        const v = values[key];
        if (v === undefined) throw new MissingState(`it needs ${key}, which an earlier scenario should have produced`);
        return v;
      },
      sent(id) {
        const s = sentById.get(id);
        if (!s) throw new MissingState(`it repeats scenario ${id}, which did not run`);
        return s;
      },
    };
  }

  async suite(suite: Suite): Promise<ScenarioResult[]> {
    const out: ScenarioResult[] = [];
    for (const scenario of suite.scenarios) out.push(await this.scenario(suite.operation, scenario));
    return out;
  }

  /** A fresh numeric X-EXTERNAL-ID: epoch milliseconds, a counter, random digits (at most 36 digits). */
  private externalId(): string {
    this.seq += 1;
    return `${Date.now()}${String(this.seq).padStart(4, '0')}${String(randomInt(1_000_000_000)).padStart(9, '0')}`;
  }

  private async scenario(op: Operation, s: Scenario): Promise<ScenarioResult> {
    const t0 = performance.now();
    const result = (passed: boolean, reason: string, request?: RecordedRequest, response?: RecordedResponse) => {
      const r: ScenarioResult = {
        group: op.name,
        id: s.id,
        title: s.title,
        kind: s.kind,
        passed,
        reason,
        durationMs: Math.round(performance.now() - t0),
      };
      if (request) r.request = request;
      if (response) r.response = response;
      return r;
    };
    if (!op.token && !this.o.clientSecret)
      return result(
        false,
        'not run: payment calls are signed HMAC-SHA512 with the client secret, and no client secret was given',
      );
    let plan: ScenarioRequest;
    try {
      plan = s.request(this.ctx);
    } catch (e) {
      if (e instanceof MissingState) return result(false, `not run: ${e.message}, and it did not pass`);
      return result(false, `not run: the scenario could not build its request: ${(e as Error).message}`);
    }
    let built: Built;
    try {
      built = op.token ? this.buildToken(op, plan) : await this.buildPayment(op, plan);
    } catch (e) {
      return result(false, `not run: ${(e as Error).message}`);
    }
    const recorded = record(built, this.base);
    let answer: Answer;
    try {
      answer = await this.send(built);
    } catch (e) {
      return result(false, `no answer from the server: ${describeError(e)}`, recorded);
    }
    const response: RecordedResponse = { status: answer.status, headers: answer.headers, body: answer.text };
    this.sentById.set(s.id, { externalId: built.externalId, raw: built.body });
    const problem = this.judge(op, s, answer);
    if (problem !== undefined) return result(false, problem, recorded, response);
    if (s.expect.save) {
      try {
        s.expect.save(JSON.parse(answer.text) as AnswerBody, this.ctx);
      } catch (e) {
        return result(false, `the answer lacks what later scenarios need: ${(e as Error).message}`, recorded, response);
      }
    }
    this.answers.set(s.id, answer);
    return result(true, 'passed', recorded, response);
  }

  /** The first way the answer fails the scenario, in plain words; undefined when it passes. */
  private judge(op: Operation, s: Scenario, a: Answer): string | undefined {
    const e = s.expect;
    const statuses = Array.isArray(e.status) ? e.status : [e.status];
    const want = describeWant(op, statuses, e.cases);
    if (a.status >= 500)
      return `the server answered HTTP ${a.status} (${brief(a.text)}); a SNAP server must never answer 5xx to this input, expected ${want}`;
    let body: unknown;
    try {
      body = JSON.parse(a.text);
    } catch {
      return `the answer is not JSON (HTTP ${a.status}: ${brief(a.text)}); expected ${want}`;
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      return `the answer is not a JSON object (HTTP ${a.status}: ${brief(a.text)}); expected ${want}`;
    const b = body as AnswerBody;
    const code = b.responseCode;
    if (typeof code !== 'string' || !/^\d{7}$/.test(code))
      return `responseCode should be a string of 7 digits, got ${JSON.stringify(code)} (HTTP ${a.status}); expected ${want}`;
    if (typeof b.responseMessage !== 'string' || b.responseMessage.trim() === '')
      return `responseMessage should be a non-empty string, got ${JSON.stringify(b.responseMessage)} (responseCode ${code})`;
    const got = `HTTP ${a.status} with ${code} "${b.responseMessage}"`;
    if (code.slice(0, 3) !== String(a.status))
      return `responseCode ${code} does not start with the HTTP status ${a.status}; the first three digits must be the HTTP status`;
    if (code.slice(3, 5) !== op.service)
      return `responseCode ${code} carries service code ${code.slice(3, 5)}, not ${op.service} (${op.name}); expected ${want}`;
    if (!statuses.includes(a.status) || (e.cases && !e.cases.includes(code.slice(5))))
      return `expected ${want}, got ${got}`;
    if (e.sameAs !== undefined) {
      const first = this.answers.get(e.sameAs);
      if (!first) return `not judged: scenario ${e.sameAs}, whose answer this one must repeat, did not pass`;
      if (first.status !== a.status || first.text !== a.text)
        return `the repeated request (same X-EXTERNAL-ID, same body) got another answer than the first: first HTTP ${first.status} ${brief(first.text)}, now HTTP ${a.status} ${brief(a.text)}; it must be the same, byte for byte`;
    }
    try {
      if (e.echo) {
        for (const [path, value] of Object.entries(e.echo(this.ctx))) {
          const v = at(b, path);
          if (JSON.stringify(v) !== JSON.stringify(value))
            return `${path} should echo ${JSON.stringify(value)}, got ${v === undefined ? 'nothing' : JSON.stringify(v)}`;
        }
      }
      if (e.check) {
        const problem = e.check(b, this.ctx);
        if (problem !== undefined) return problem;
      }
    } catch (err) {
      if (err instanceof MissingState) return `not judged: ${err.message}`;
      throw err;
    }
    return undefined;
  }

  private buildToken(op: Operation, plan: ScenarioRequest): Built {
    const timestamp = plan.timestamp ?? formatJakartaTimestamp(Date.now());
    const body = plan.raw ?? JSON.stringify(plan.body ?? {});
    const headers: Record<string, string | null> = {
      'content-type': 'application/json',
      'x-client-key': this.o.clientKey,
      'x-timestamp': timestamp,
      ...plan.headers,
    };
    const key = headers['x-client-key'] ?? this.o.clientKey;
    const signed = plan.signature === 'wrong' ? `${timestamp}0` : timestamp;
    if (!('x-signature' in (plan.headers ?? {}))) headers['x-signature'] = this.tokenSignature(key, signed);
    return { method: op.method, path: op.path, headers: clean(headers), body, externalId: undefined };
  }

  private tokenSignature(clientKey: string, timestamp: string): string {
    const data = tokenStringToSign(clientKey, timestamp);
    return this.o.privateKeyPem
      ? rsaSha256SignBase64(this.o.privateKeyPem, data)
      : hmacSha256Base64(this.o.clientSecret ?? '', data);
  }

  private async buildPayment(op: Operation, plan: ScenarioRequest): Promise<Built> {
    const secret = this.o.clientSecret ?? '';
    const token = plan.token === 'none' || plan.token === 'invalid' ? undefined : await this.token();
    const accessToken = plan.token === 'invalid' ? `conformance-invalid-${this.ctx.run}` : (token ?? '');
    const timestamp = plan.timestamp ?? formatJakartaTimestamp(Date.now());
    const externalId = plan.externalId ?? this.externalId();
    const body = plan.raw ?? JSON.stringify(plan.body ?? {});
    const headers: Record<string, string | null> = {
      'content-type': 'application/json',
      ...(plan.token === 'none' ? {} : { authorization: `Bearer ${accessToken}` }),
      'x-timestamp': timestamp,
      'x-partner-id': this.o.partnerId,
      'x-external-id': externalId,
      'channel-id': this.ctx.channelId,
      ...plan.headers,
    };
    const data = serviceStringToSign({
      method: op.method,
      path: op.path,
      accessToken,
      rawBody: body,
      timestamp: plan.signature === 'wrong' ? `${timestamp}0` : timestamp,
    });
    if (!('x-signature' in (plan.headers ?? {}))) headers['x-signature'] = hmacSha512Base64(secret, data);
    const sentExternal = headers['x-external-id'] ?? undefined;
    return { method: op.method, path: op.path, headers: clean(headers), body, externalId: sentExternal };
  }

  /** The run's access token, taken once and again shortly before it expires. */
  private async token(): Promise<string> {
    if (this.accessToken && Date.now() < this.accessToken.until) return this.accessToken.value;
    const built = this.buildToken(OPERATIONS.token, { body: { grantType: 'client_credentials' } });
    let a: Answer;
    try {
      a = await this.send(built);
    } catch (e) {
      throw new Error(`no access token: the token request got no answer: ${describeError(e)}`);
    }
    let body: AnswerBody | undefined;
    try {
      body = JSON.parse(a.text) as AnswerBody;
    } catch {
      body = undefined;
    }
    const value = body?.accessToken;
    if (a.status !== 200 || typeof value !== 'string' || value === '')
      throw new Error(`no access token: the token request got HTTP ${a.status} ${brief(a.text)}`);
    const expiresIn = Number(body?.expiresIn);
    const life = Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : 900;
    this.accessToken = { value, until: Date.now() + Math.max(life - 60, life / 2) * 1000 };
    return value;
  }

  private async send(b: Built): Promise<Answer> {
    const res = await undiciRequest(`${this.base}${b.path}`, {
      method: b.method,
      headers: b.headers,
      body: b.body,
      signal: AbortSignal.timeout(this.o.timeoutMs ?? 15_000),
    });
    const text = await res.body.text();
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers)) {
      if (typeof v === 'string') headers[k] = v;
      else if (Array.isArray(v)) headers[k] = v.join(', ');
    }
    return { status: res.statusCode, text, headers };
  }
}

interface Built {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  externalId: string | undefined;
}

function clean(h: Record<string, string | null>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== null) out[k] = v;
  return out;
}

function record(b: Built, base: string): RecordedRequest {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(b.headers))
    headers[k] = k === 'authorization' || k === 'x-signature' ? REDACTED : v;
  return { method: b.method, url: `${base}${b.path}`, path: b.path, headers, body: b.body };
}

function describeWant(op: Operation, statuses: number[], cases: readonly string[] | undefined): string {
  const codes = statuses.flatMap((st) =>
    cases ? cases.map((c) => `${st}${op.service}${c}`) : [`${st}${op.service}xx`],
  );
  const http = statuses.map((st) => `HTTP ${st}`).join(' or ');
  return `${http} with responseCode ${codes.join(' or ')}`;
}

function brief(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (t === '') return 'an empty body';
  return t.length > 200 ? `${t.slice(0, 200)}…` : t;
}

function describeError(e: unknown): string {
  const err = e as Error & { code?: string; cause?: { code?: string; message?: string } };
  const code = err.code ?? err.cause?.code;
  return code ? `${code}: ${err.message}` : err.message;
}
