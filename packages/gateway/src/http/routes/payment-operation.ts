import type { RecordFor, SnapResponse } from '../../payments/idempotency.ts';
import type { MerchantRequest } from '../../payments/snap-request.ts';
import type { SnapDoc } from '../openapi/snap-kit.ts';

/** One operation of the payment API as merchants call it: where, which service, what it runs, what the document says. */
export interface PaymentOperation {
  method: 'POST' | 'PUT' | 'DELETE';
  path: string;
  serviceCode: string;
  name: string;
  writes: boolean;
  /** withIdempotency's createsFirst: QRIS generate, VA create and e-wallet pay. */
  createsFirst?: boolean;
  run: (ctx: MerchantRequest, recordFor: RecordFor) => Promise<SnapResponse>;
  /** What the SNAP document says of it. */
  doc: SnapDoc;
}
