// The same merchant in CommonJS: require() the packed SDK, take a token, make a QRIS and verify the
// gateway's callback with verifyCallback on the raw bytes received. Prints one JSON line.
const { createServer } = require('node:http');
const { createSnapClient, createTokenClient, idr, verifyCallback, ACKNOWLEDGEMENT } = require('@snapgate/merchant-sdk');

async function main() {
  const env = process.env;
  const gatewayUrl = env.GATEWAY_URL;
  let verified;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      try {
        const n = verifyCallback(
          { method: req.method, path: req.url, headers: req.headers, rawBody: Buffer.concat(chunks) },
          { clientSecret: env.CLIENT_SECRET, partnerId: env.PARTNER_ID },
        );
        verified = { status: n.latestTransactionStatus, amount: n.amount.value };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(ACKNOWLEDGEMENT));
      } catch (e) {
        res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify(e.toBody()));
      }
    });
  });
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
  const qr = await snap.generateQris({ partnerReferenceNo: `CJS-${Date.now()}`, amount: idr('20000.00') });
  await admin('POST', `/sandbox/qris/${qr.referenceNo}/pay`, {});
  const deadline = Date.now() + 15_000;
  while (!verified && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  server.close();
  console.log(JSON.stringify({ token: (await tokens.getToken()).length > 0, referenceNo: qr.referenceNo, verified }));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
