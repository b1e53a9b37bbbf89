import type { ScenarioResult } from '../conformance/report.ts';
import { CallbackTokenFailed, type CallbackTokens } from '../delivery/callback-token.ts';
import type { MerchantRecord } from '../records/records.ts';

/**
 * A `snap-b2b` merchant's token endpoint, asked before anything is changed: a merchant whose
 * endpoint issues no token gets a report that says so (a failed scenario), and its orders stay as
 * they were. `undefined` when a token was issued (or none is needed).
 */
export async function tokenRefusal(
  tokens: CallbackTokens | undefined,
  merchant: MerchantRecord,
): Promise<ScenarioResult | undefined> {
  if (!tokens) return undefined;
  try {
    await tokens.get(merchant);
    return undefined;
  } catch (e) {
    if (!(e instanceof CallbackTokenFailed)) throw e;
    return tokenFailure(e);
  }
}

/** A token refused (first, or when one ran out mid-run) as the report's failed scenario. */
export function tokenFailure(e: CallbackTokenFailed): ScenarioResult {
  const r = e.request;
  return {
    group: 'snap-b2b',
    id: 'token',
    title: 'the gateway’s token request to your callbackTokenUrl',
    kind: 'positive',
    passed: false,
    reason: `your token endpoint issued no token (${e.message}): every callback to a snap-b2b merchant carries one, so no notification can reach you`,
    durationMs: Math.round(r.durationMs),
    request: {
      method: 'POST',
      url: r.url ?? '',
      path: r.url ? new URL(r.url).pathname : '',
      headers: r.requestHeaders,
      body: '',
    },
    response: { status: r.status ?? 0, headers: {}, body: r.responseBody ?? '' },
  };
}
