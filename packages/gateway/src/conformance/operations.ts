import { B2B_TOKEN_PATH, SERVICE } from '@snapgate/snap';
import type { Operation } from './types.ts';

const SNAP = '/api/snap/v1.0';

/** Every operation the conformance run checks, in the order it runs them. */
export const OPERATIONS = {
  token: { name: 'token', method: 'POST', path: B2B_TOKEN_PATH, service: SERVICE.token, token: true },
  qrisGenerate: {
    name: 'qris-generate',
    method: 'POST',
    path: `${SNAP}/qr/qr-mpm-generate`,
    service: SERVICE.qrisGenerate,
  },
  qrisQuery: { name: 'qris-query', method: 'POST', path: `${SNAP}/qr/qr-mpm-query`, service: SERVICE.qrisQuery },
  qrisCancel: { name: 'qris-cancel', method: 'POST', path: `${SNAP}/qr/qr-mpm-cancel`, service: SERVICE.qrisCancel },
  qrisRefund: { name: 'qris-refund', method: 'POST', path: `${SNAP}/qr/qr-mpm-refund`, service: SERVICE.qrisRefund },
  vaCreate: { name: 'va-create', method: 'POST', path: `${SNAP}/transfer-va/create-va`, service: SERVICE.vaCreate },
  vaInquiry: { name: 'va-inquiry', method: 'POST', path: `${SNAP}/transfer-va/inquiry-va`, service: SERVICE.vaInquiry },
  vaStatus: { name: 'va-status', method: 'POST', path: `${SNAP}/transfer-va/status`, service: SERVICE.vaInquiryStatus },
  vaUpdate: { name: 'va-update', method: 'PUT', path: `${SNAP}/transfer-va/update-va`, service: SERVICE.vaUpdate },
  vaDelete: { name: 'va-delete', method: 'DELETE', path: `${SNAP}/transfer-va/delete-va`, service: SERVICE.vaDelete },
} as const satisfies Record<string, Operation>;
