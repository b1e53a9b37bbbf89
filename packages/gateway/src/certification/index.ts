export { formatJson, formatJunit, formatText } from '../conformance/report.ts';
export {
  CERTIFICATION_PAYER,
  CERTIFICATION_SUITE,
  type CertificationDeps,
  type CertificationInput,
  type CertificationProblem,
  type CertificationRecord,
  CertificationRefused,
  type CertificationReport,
  type CertifiedTransaction,
  certifyMerchant,
  reportOf,
} from './certify.ts';
