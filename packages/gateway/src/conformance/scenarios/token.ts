// B2B access token (service 71): POST /api/snap/v1.0/access-token/b2b.
import type { Scenario } from '../types.ts';
import { all, BAD_REQUEST, MALFORMED, MISSING, nonEmptyStrings, OK, staleTimestamp, UNAUTHORIZED } from './common.ts';

const GRANT = { grantType: 'client_credentials' };

export const tokenScenarios: Scenario[] = [
  {
    id: 'token-ok',
    title: 'a correctly signed request gets a Bearer token (2007100)',
    kind: 'positive',
    request: () => ({ body: GRANT }),
    expect: {
      ...OK,
      check: all(nonEmptyStrings('accessToken'), (body) => {
        if (typeof body.tokenType !== 'string' || body.tokenType.toLowerCase() !== 'bearer')
          return `tokenType should be "Bearer", got ${JSON.stringify(body.tokenType)}`;
        const e = body.expiresIn;
        const seconds = typeof e === 'string' && /^\d+$/.test(e) ? Number(e) : e;
        if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds <= 0)
          return `expiresIn should be a positive number of seconds, got ${JSON.stringify(e)}`;
        return undefined;
      }),
    },
  },
  {
    id: 'token-bad-signature',
    title: 'a wrong X-SIGNATURE is refused as unauthorized',
    kind: 'negative',
    request: () => ({ body: GRANT, signature: 'wrong' }),
    expect: UNAUTHORIZED,
  },
  {
    id: 'token-signature-not-base64',
    title: 'an X-SIGNATURE that is not even base64 is refused as unauthorized',
    kind: 'negative',
    request: () => ({ body: GRANT, headers: { 'x-signature': '%%% not base64 %%%' } }),
    expect: UNAUTHORIZED,
  },
  {
    id: 'token-unknown-client',
    title: 'an X-CLIENT-KEY the server does not know is refused as unauthorized',
    kind: 'negative',
    request: (ctx) => ({ body: GRANT, headers: { 'x-client-key': `unknown-${ctx.run}` } }),
    expect: UNAUTHORIZED,
  },
  {
    id: 'token-stale-timestamp',
    title: 'an X-TIMESTAMP one hour old is refused as unauthorized',
    kind: 'negative',
    request: () => ({ body: GRANT, timestamp: staleTimestamp() }),
    expect: UNAUTHORIZED,
  },
  {
    id: 'token-missing-client-key',
    title: 'a missing X-CLIENT-KEY is a missing mandatory field (4007102)',
    kind: 'negative',
    request: () => ({ body: GRANT, headers: { 'x-client-key': null } }),
    expect: MISSING,
  },
  {
    id: 'token-missing-timestamp',
    title: 'a missing X-TIMESTAMP is a missing mandatory field (4007102)',
    kind: 'negative',
    request: () => ({ body: GRANT, headers: { 'x-timestamp': null } }),
    expect: MISSING,
  },
  {
    id: 'token-missing-signature',
    title: 'a missing X-SIGNATURE is a missing mandatory field (4007102)',
    kind: 'negative',
    request: () => ({ body: GRANT, headers: { 'x-signature': null } }),
    expect: MISSING,
  },
  {
    id: 'token-malformed-timestamp',
    title: 'an X-TIMESTAMP that is not ISO 8601 is an invalid field format (4007101)',
    kind: 'negative',
    request: () => ({ body: GRANT, timestamp: '23/11/2026 10:00:00' }),
    expect: MALFORMED,
  },
  {
    id: 'token-missing-grant-type',
    title: 'a body without grantType is a missing mandatory field (4007102)',
    kind: 'negative',
    request: () => ({ body: {} }),
    expect: MISSING,
  },
  {
    id: 'token-wrong-grant-type',
    title: 'a grantType other than client_credentials is an invalid field format (4007101)',
    kind: 'negative',
    request: () => ({ body: { grantType: 'password' } }),
    expect: MALFORMED,
  },
  {
    id: 'token-body-not-json',
    title: 'a body that is not JSON is a bad request (400)',
    kind: 'negative',
    request: () => ({ raw: '{"grantType":' }),
    expect: BAD_REQUEST,
  },
];
