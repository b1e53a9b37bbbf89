import type { Store } from '../store/store.ts';
import {
  type CertificationDeps,
  type CertificationInput,
  type CertificationRecord,
  type CertificationReport,
  certifyMerchant,
  reportOf,
} from './certify.ts';

/**
 * Webhook certification runs, alike for the admin API and the console: run one (sandbox mode only;
 * a refusal is a CertificationRefused), a merchant's runs newest first, one run with its report.
 */
export function createCertificationService(deps: CertificationDeps & { store: Store }) {
  return {
    mode: deps.mode,
    run: (input: CertificationInput): Promise<CertificationReport> => certifyMerchant(deps, input),
    list: (merchantId: string): Promise<CertificationRecord[]> => deps.store.listCertifications(merchantId),
    async get(id: string): Promise<{ record: CertificationRecord; report: CertificationReport } | undefined> {
      const record = await deps.store.findCertification(id);
      return record && { record, report: reportOf(record) };
    },
  };
}

export type CertificationService = ReturnType<typeof createCertificationService>;
