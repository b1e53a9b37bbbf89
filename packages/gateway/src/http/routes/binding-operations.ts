import { SERVICE } from '@snapgate/snap';
import type { BindingService } from '../../payments/binding-service.ts';
import { paramRef } from '../openapi/kit.ts';
import { MERCHANT, merchantSecurity, SIGNED_HEADERS, TAG, UPSTREAM } from '../openapi/snap-kit.ts';
import type { PaymentOperation } from './payment-operation.ts';

const BINDING = { referenceNo: '261129140513557209', partnerReferenceNo: 'CUSTOMER-77-DANA' };

/** Account binding as merchants call it (docs/ewallets.md#account-binding): bind (07) and unbind (09). */
export function bindingOperations(bindings: BindingService): PaymentOperation[] {
  return [
    {
      method: 'POST',
      path: 'registration-account-binding',
      serviceCode: SERVICE.accountBinding,
      name: 'registration-account-binding',
      writes: true,
      run: (c, r) => bindings.bind(c, r),
      doc: {
        operationId: 'registrationAccountBinding',
        tag: TAG.ewallet,
        summary: 'Bind a customer’s wallet account',
        description:
          'Asks the customer to link their wallet account to the merchant: send them to `redirectUrl`, the wallet’s page (a connected wallet’s own, or the sandbox wallet `SANDBOXPAY`’s page of the gateway). They come back to the merchant’s `redirectUrl` with a one-time `authCode` (10 minutes) from the gateway, which `access-token/b2b2c` trades for the customer token; its payments need no redirect. A connected wallet that refuses or does not answer is `500 0702` or `504 0700`, and the `partnerReferenceNo` may be used again.',
        security: merchantSecurity,
        parameters: SIGNED_HEADERS,
        request: 'AccountBindingRequest',
        requestExample: {
          partnerReferenceNo: BINDING.partnerReferenceNo,
          phoneNo: '6281234567890',
          redirectUrl: 'https://shop.example/account/wallet-linked',
          additionalInfo: { payOption: 'SANDBOXPAY' },
        },
        response: 'AccountBindingResponse',
        responseExample: {
          ...BINDING,
          redirectUrl: 'https://pay.example/bind/3q2-7wEGZ0mJ1y5b_8kQxB',
          additionalInfo: { payOption: 'SANDBOXPAY' },
        },
        cases: [...MERCHANT, 'DUPLICATE_PARTNER_REFERENCE_NO', 'FEATURE_NOT_ALLOWED', ...UPSTREAM],
      },
    },
    {
      method: 'POST',
      path: 'registration-account-unbinding',
      serviceCode: SERVICE.accountUnbinding,
      name: 'registration-account-unbinding',
      writes: true,
      run: (c, r) => bindings.unbind(c, r),
      doc: {
        operationId: 'registrationAccountUnbinding',
        tag: TAG.ewallet,
        summary: 'Unbind a customer’s wallet account',
        description:
          'Ends the binding of the customer token (`Authorization-Customer`); the token and its refresh token stop working at once. A connected wallet’s binding ends there first; one the wallet no longer knows (the customer ended it in the wallet’s app) ends here too.',
        security: merchantSecurity,
        parameters: [...SIGNED_HEADERS, paramRef('AuthorizationCustomer')],
        request: 'AccountUnbindingRequest',
        requestExample: { partnerReferenceNo: BINDING.partnerReferenceNo },
        response: 'AccountUnbindingResponse',
        responseExample: { ...BINDING, unlinkResult: 'success', additionalInfo: { payOption: 'SANDBOXPAY' } },
        cases: [...MERCHANT, 'INVALID_CUSTOMER_TOKEN', ...UPSTREAM],
      },
    },
  ];
}
