// Type-checked in the fresh project with a strict tsc (NodeNext, skipLibCheck off): the CommonJS types.
import sdk = require('@snapgate/merchant-sdk');

export const tokens: sdk.TokenClient = sdk.createTokenClient({
  baseUrl: 'http://127.0.0.1:8080',
  clientKey: 'k',
  clientSecret: 's',
});
export const amount: sdk.Money = sdk.idr('1.00');
export function isNetwork(e: unknown): e is sdk.SnapNetworkError {
  return e instanceof sdk.SnapNetworkError;
}
