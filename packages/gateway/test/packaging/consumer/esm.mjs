// A merchant's plain-JavaScript ESM program, run from a fresh project that installed the packed
// @snapgate/merchant-sdk: token, a QRIS, then the gateway's callback verified and applied.
// Reads GATEWAY_URL, ADMIN_TOKEN, MERCHANT_ID, CLIENT_KEY, CLIENT_SECRET, PARTNER_ID; prints one JSON line.
import { createServer } from 'node:http';
import {
  ACKNOWLEDGEMENT,
  createCallbackHandler,
  createSnapClient,
  createTokenClient,
  idr,
  SnapNetworkError,
} from '@snapgate/merchant-sdk';

const env = process.env;
const gatewayUrl = env.GATEWAY_URL;
let applied;
const handler = createCallbackHandler({
  clientSecret: env.CLIENT_SECRET,
  partnerId: env.PARTNER_ID,
  onStatus: (event) => {
    applied = { status: event.status, action: event.action, path: event.path };
  },
});
const server = createServer(handler);
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const admin = (method, path, body) =>
  fetch(`${gatewayUrl}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${env.ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
await admin('PATCH', `/merchants/${env.MERCHANT_ID}`, {
  callbackBaseUrl: `http://127.0.0.1:${server.address().port}`,
});

const tokens = createTokenClient({ baseUrl: gatewayUrl, clientKey: env.CLIENT_KEY, clientSecret: env.CLIENT_SECRET });
const snap = createSnapClient({
  baseUrl: gatewayUrl,
  partnerId: env.PARTNER_ID,
  clientSecret: env.CLIENT_SECRET,
  tokenClient: tokens,
});
const accessToken = await tokens.getToken();
const qr = await snap.generateQris({ partnerReferenceNo: `ESM-${Date.now()}`, amount: idr('15000.00') });
await admin('POST', `/sandbox/qris/${qr.referenceNo}/pay`, {});
const deadline = Date.now() + 15_000;
while (!applied && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));

// A port that refuses connections: bound, then closed.
const closed = createServer();
await new Promise((resolve) => closed.listen(0, '127.0.0.1', resolve));
const closedPort = closed.address().port;
await new Promise((resolve) => closed.close(resolve));
const unreachable = createTokenClient({ baseUrl: `http://127.0.0.1:${closedPort}`, clientKey: 'k', clientSecret: 's' });
const networkError = await unreachable.getToken().catch((e) => e);
server.close();
console.log(
  JSON.stringify({
    token: accessToken.length > 0,
    qrContent: typeof qr.qrContent === 'string' && qr.qrContent.length > 0,
    callback: applied,
    ack: ACKNOWLEDGEMENT.responseCode,
    networkError: networkError instanceof SnapNetworkError ? networkError.code : String(networkError),
  }),
);
