import { randomUUID } from 'node:crypto';
import type { ConformanceReport, ScenarioResult } from '../conformance/report.ts';
import { runConformance } from '../conformance/runner.ts';
import type { MerchantRecord } from '../records/records.ts';
import type { Store } from '../store/store.ts';
import {
  CERTIFICATION_SUITE,
  type CertificationDeps,
  type CertificationInput,
  type CertificationRecord,
  type CertificationReport,
  certifyMerchant,
  reportOf,
} from './certify.ts';

/** The suite of a SNAP conformance run (src/conformance), as its report and its stored row name it. */
export const CONFORMANCE_SUITE = 'snap-server-conformance';

/** A stored conformance run: its report, with the run's id and merchant. */
export interface ConformanceRun extends ConformanceReport {
  id: string;
  merchantId: string;
  finishedAt: string;
}

// The token scenarios' answers hold a live access token of the merchant: never kept in clear.
const ACCESS_TOKEN = /("accessToken"\s*:\s*")[^"\s]*/g;
const withoutToken = (text: string) => text.replace(ACCESS_TOKEN, '$1[redacted]');
const redacted = (r: ScenarioResult): ScenarioResult => ({
  ...r,
  reason: withoutToken(r.reason),
  ...(r.response ? { response: { ...r.response, body: withoutToken(r.response.body) } } : {}),
});

/**
 * A merchant's stored runs, alike for the admin API and the console: webhook certification of its
 * callback endpoint (sandbox mode only; a refusal is a CertificationRefused), and SNAP conformance
 * runs against this gateway with the merchant's own credentials. Both are kept with their whole
 * report (the certifications table, by suite).
 */
export function createCertificationService(deps: CertificationDeps & { store: Store }) {
  const { store } = deps;
  return {
    mode: deps.mode,
    run: (input: CertificationInput): Promise<CertificationReport> => certifyMerchant(deps, input),
    /** A merchant's certification runs, newest first. */
    list: (merchantId: string): Promise<CertificationRecord[]> =>
      store.listCertifications(merchantId, CERTIFICATION_SUITE),
    /** One certification run with its report (a conformance run is not one). */
    async get(id: string): Promise<{ record: CertificationRecord; report: CertificationReport } | undefined> {
      const record = await store.findCertification(id);
      return record && record.suite === CERTIFICATION_SUITE ? { record, report: reportOf(record) } : undefined;
    },

    /**
     * Runs the SNAP conformance scenarios against `url` (this gateway) as the merchant (its client
     * key, secret and partner id) and keeps the report, the merchant's access tokens redacted. It
     * creates, cancels and deletes transactions: the caller runs it in sandbox mode only.
     */
    async conformance(merchant: MerchantRecord, url: string): Promise<ConformanceRun> {
      const started = Date.now();
      const ran = await runConformance({
        url,
        clientKey: merchant.clientKey,
        clientSecret: merchant.clientSecret,
        partnerId: merchant.partnerId,
      });
      const finished = Date.now();
      const run: ConformanceRun = {
        ...ran,
        results: ran.results.map(redacted),
        id: randomUUID(),
        merchantId: merchant.id,
        finishedAt: new Date(finished).toISOString(),
      };
      await store.insertCertification({
        id: run.id,
        merchantId: merchant.id,
        startedAt: started,
        finishedAt: finished,
        passed: run.ok,
        report: JSON.stringify(run),
        suite: CONFORMANCE_SUITE,
      });
      return run;
    },
    /** A merchant's conformance runs, newest first. */
    async conformanceRuns(merchantId: string): Promise<ConformanceRun[]> {
      const rows = await store.listCertifications(merchantId, CONFORMANCE_SUITE);
      return rows.map((r) => JSON.parse(r.report) as ConformanceRun);
    },
    /** One conformance run of the merchant, or undefined. */
    async conformanceRun(merchantId: string, id: string): Promise<ConformanceRun | undefined> {
      const r = await store.findCertification(id);
      if (!r || r.suite !== CONFORMANCE_SUITE || r.merchantId !== merchantId) return undefined;
      return JSON.parse(r.report) as ConformanceRun;
    },
  };
}

export type CertificationService = ReturnType<typeof createCertificationService>;
