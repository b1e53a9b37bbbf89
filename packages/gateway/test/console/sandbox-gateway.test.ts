// The console offers a sandbox action exactly when the gateway takes it. For each kind of
// transaction (a QRIS Initiated, Paying, Pending, paid, failed or expired; one of a merchant routed
// to another acquirer; one an upstream acquirer issued, past its expiresAt; a closed, open-amount,
// expired, paid or another bank's VA), what the transaction's console page offers is read, then
// every action is tried through the admin sandbox API of the same gateway, each on a transaction of
// its own: offered, the gateway accepts it (the transaction changes, or its notification is sent
// again); not offered, the gateway refuses it (4xx), or acknowledges a report it already has and
// changes nothing (a repeated acquirer report is answered 200, as SNAP asks). No browser.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { formatJakartaTimestamp } from '@snapgate/snap';
import type { Clock } from '../../src/clock.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { authenticate, type SnapCaller, snapCall } from '../helpers/snap.ts';
import { getPage, signInByHand } from './console-gateway.ts';

type Verb = 'pay' | 'pend' | 'fail';
const QRIS_STATUS: Record<Verb, string> = { pay: '00', pend: '01', fail: '06' };
const idr = (value: string) => ({ value, currency: 'IDR' });

/** A transaction made for one attempt: its reference, and its VA number when it is a VA. */
interface Made {
  ref: string;
  vaNo?: string;
}

interface Case {
  name: string;
  kind: 'qris' | 'va';
  /** What the console is expected to offer (pinned, so that a console offering nothing fails too). */
  offers: Verb[];
  /** Makes a fresh transaction in this state, before the clock moves on. */
  make(): Promise<Made>;
  /** After the clock moved on, before the page is read (the gateway records an expiry). */
  settle?(m: Made): Promise<void>;
}

describe('sandbox actions: offered by the console exactly when the gateway takes them', () => {
  /** The gateway's clock: real time, moved on past the short expiries once everything is made. */
  let offsetMs = 0;
  const clock: Clock = { now: () => Date.now() + offsetMs };
  const MOVE_MS = 120_000;
  let gw: TestGateway;
  /** The upstream acquirer: another snapgate, of which the gateway under test is a merchant. */
  let upstream: TestGateway;
  let session: string;
  let own: SnapCaller;
  let routed: SnapCaller;
  let viaUpstream: SnapCaller;
  let seq = 0;

  before(async () => {
    upstream = await startGateway();
    gw = await startGateway({ clock });
    own = await authenticate(gw.url, await gw.createMerchant({ name: 'Toko Sendiri' }));

    // A merchant routed to an acquirer that is not the sandbox's (no outbound: the gateway issues its QRIS).
    const other = await gw.admin('POST', '/providers', { name: 'Other Acquirer', kind: 'acquirer', bankCode: '936' });
    assert.equal(other.status, 201, JSON.stringify(other.body));
    routed = await authenticate(gw.url, await gw.createMerchant({ name: 'Toko Lain', qrisProvider: other.body.id }));

    // A merchant whose QRIS the upstream acquirer issues (docs/upstream.md).
    const atUpstream = (await upstream.admin('POST', '/merchants', { name: 'Aggregator' })).body;
    const acquirer = await gw.admin('POST', '/providers', {
      name: 'Upstream Acquirer',
      kind: 'acquirer',
      bankCode: '936',
      outbound: {
        baseUrl: upstream.url,
        clientKey: atUpstream.clientKey,
        clientSecret: atUpstream.clientSecret,
        partnerId: atUpstream.partnerId,
      },
    });
    assert.equal(acquirer.status, 201, JSON.stringify(acquirer.body));
    viaUpstream = await authenticate(
      gw.url,
      await gw.createMerchant({ name: 'Toko Hulu', qrisProvider: acquirer.body.id }),
    );

    // A bank registered with its own bank code: its VAs are not the sandbox bank's.
    const bank = await gw.admin('POST', '/providers', { name: 'Bank 014', kind: 'bank', bankCode: '014' });
    assert.equal(bank.status, 201, JSON.stringify(bank.body));
  });
  after(async () => {
    await gw?.close();
    await upstream?.close();
  });

  const soon = () => formatJakartaTimestamp(clock.now() + 30_000);
  const qris = async (caller = own, more: Record<string, unknown> = {}): Promise<Made> => {
    const r = await snapCall(gw.url, caller, '/api/snap/v1.0/qr/qr-mpm-generate', {
      partnerReferenceNo: `SBX-${++seq}`,
      amount: idr('15000.00'),
      ...more,
    });
    assert.equal(r.status, 200, r.text);
    return { ref: r.body.referenceNo };
  };
  /** A QRIS the sandbox acquirer moved to `status` (02, 03, 00, 06). */
  const qrisIn = async (status: string): Promise<Made> => {
    const m = await qris();
    const r = await gw.admin('POST', `/sandbox/qris/${m.ref}/pay`, { status });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return m;
  };
  const va = async (more: Record<string, unknown>): Promise<Made> => {
    const r = await snapCall(gw.url, own, '/api/snap/v1.0/transfer-va/create-va', {
      virtualAccountName: 'Budi',
      trxId: `SBX-VA-${++seq}`,
      ...more,
    });
    assert.equal(r.status, 200, r.text);
    const vaNo = r.body.virtualAccountData.virtualAccountNo as string;
    return { ref: (await gw.store.findTransactionByVirtualAccountNo(vaNo))?.referenceNo as string, vaNo };
  };
  const closedVa = () => va({ totalAmount: idr('25000.00') });

  const cases: Case[] = [
    { name: 'a QRIS Initiated (01)', kind: 'qris', offers: ['pay', 'pend', 'fail'], make: () => qris() },
    { name: 'a QRIS Paying (02)', kind: 'qris', offers: ['pay', 'fail'], make: () => qrisIn('02') },
    { name: 'a QRIS Pending (03)', kind: 'qris', offers: ['pay', 'fail'], make: () => qrisIn('03') },
    { name: 'a paid QRIS (00)', kind: 'qris', offers: [], make: () => qrisIn('00') },
    { name: 'a failed QRIS (06)', kind: 'qris', offers: [], make: () => qrisIn('06') },
    {
      name: 'a QRIS past its validityPeriod',
      kind: 'qris',
      offers: [],
      make: () => qris(own, { validityPeriod: soon() }),
      // Recorded as expired by the gateway: its sweeper does so every second in a running gateway
      // (not started here); the merchant's query does so at once.
      async settle(m) {
        const q = await snapCall(gw.url, own, '/api/snap/v1.0/qr/qr-mpm-query', {
          originalReferenceNo: m.ref,
          serviceCode: '47',
        });
        assert.equal(q.body.transactionStatusDesc, 'Expired', q.text);
      },
    },
    {
      name: 'a QRIS of a merchant routed to another acquirer',
      kind: 'qris',
      offers: ['pend'],
      make: () => qris(routed),
    },
    {
      name: 'a QRIS an upstream acquirer issued, past its expiresAt',
      kind: 'qris',
      offers: ['pend'],
      make: async () => {
        const m = await qris(viaUpstream, { validityPeriod: soon() });
        const t = await gw.store.findTransaction(m.ref);
        assert.ok(t?.kind === 'qris' && t.details.upstream, 'the upstream acquirer issued it');
        return m;
      },
      async settle(m) {
        const t = await gw.store.findTransaction(m.ref);
        assert.ok(t?.expiresAt !== null && (t?.expiresAt ?? 0) < clock.now(), 'past its expiresAt');
        assert.equal(t?.status, '01');
      },
    },
    { name: 'a closed VA', kind: 'va', offers: ['pay'], make: closedVa },
    { name: 'an open-amount VA', kind: 'va', offers: ['pay'], make: () => va({ virtualAccountTrxType: 'O' }) },
    {
      name: 'a VA past its expiredDate',
      kind: 'va',
      offers: [],
      make: () => va({ totalAmount: idr('25000.00'), expiredDate: soon() }),
    },
    {
      name: 'a paid VA',
      kind: 'va',
      offers: [],
      make: async () => {
        const m = await closedVa();
        const r = await gw.admin('POST', `/sandbox/va/${encodeURIComponent(m.vaNo as string)}/pay`, {});
        assert.equal(r.status, 200, JSON.stringify(r.body));
        return m;
      },
    },
    {
      name: 'a VA of a registered bank’s code',
      kind: 'va',
      offers: [],
      make: () => va({ totalAmount: idr('25000.00'), additionalInfo: { bankCode: '014' } }),
    },
  ];
  const verbsOf = (c: Case): Verb[] => (c.kind === 'qris' ? ['pay', 'pend', 'fail'] : ['pay']);

  /** What the transaction's console page offers, and whether Pay VA asks for an amount. */
  const offeredOn = async (ref: string) => {
    const page = await getPage(gw.url, session, `/console/transactions/${encodeURIComponent(ref)}`);
    assert.equal(page.status, 200);
    const section = /<section class="card" aria-labelledby="h-sandbox" id="sandbox">([\s\S]*?)<\/section>/.exec(
      page.text,
    )?.[1];
    assert.ok(section !== undefined, `the page of ${ref} has its sandbox section`);
    const qrisForm = (status: string) =>
      section.includes('action="/console/sandbox/qris/') && section.includes(`name="status" value="${status}"`);
    const vaForm = section.includes('action="/console/sandbox/va/');
    return {
      offers: { pay: qrisForm('00') || vaForm, pend: qrisForm('01'), fail: qrisForm('06') } as Record<Verb, boolean>,
      amountRequired: /<input name="amount"[^>]* required>/.test(section),
    };
  };

  /** What an action the gateway takes changes: the status, its history, the notifications. */
  const stateOf = async (ref: string) => {
    const t = (await gw.admin('GET', `/transactions/${ref}`)).body;
    return {
      status: t.status,
      statusDesc: t.statusDesc,
      history: t.statusHistory.length,
      notifications: t.notifications.length,
    };
  };

  /** The action through the admin sandbox API: whether the gateway took it (and changed something). */
  const attempt = async (c: Case, m: Made, verb: Verb, amountRequired: boolean) => {
    const before = await stateOf(m.ref);
    const r =
      c.kind === 'qris'
        ? await gw.admin('POST', `/sandbox/qris/${m.ref}/pay`, { status: QRIS_STATUS[verb] })
        : await gw.admin(
            'POST',
            `/sandbox/va/${encodeURIComponent(m.vaNo as string)}/pay`,
            amountRequired ? { amount: '5000.00' } : {},
          );
    assert.ok(r.status === 200 || (r.status >= 400 && r.status < 500), `${r.status} ${JSON.stringify(r.body)}`);
    const now = await stateOf(m.ref);
    const changed = JSON.stringify(now) !== JSON.stringify(before);
    if (r.status !== 200 && changed) {
      // A refusal changes nothing, except that the gateway records an expiry that was due.
      assert.deepEqual([now.status, now.statusDesc], ['06', 'Expired'], 'a refusal changes nothing');
    } else if (changed) {
      assert.equal(now.status, c.kind === 'qris' ? QRIS_STATUS[verb] : '00', 'the status it was asked for');
      assert.ok(now.notifications > before.notifications, 'the merchant is notified');
    }
    return { accepted: r.status === 200 && changed, answer: { httpStatus: r.status, ...r.body } };
  };

  /** One fresh transaction per case and action, all made before the clock moves on. */
  const made = new Map<string, Made>();
  it('makes every transaction, then moves the gateway’s clock past the short expiries', async () => {
    for (const c of cases) for (const verb of verbsOf(c)) made.set(`${c.name}/${verb}`, await c.make());
    offsetMs = MOVE_MS;
    session = await signInByHand(gw.url);
    for (const c of cases) for (const verb of verbsOf(c)) await c.settle?.(made.get(`${c.name}/${verb}`) as Made);
  });

  it('the Sandbox page lists the open transactions: Initiated, Paying and Pending', async () => {
    const list = (await getPage(gw.url, session, '/console/sandbox')).text;
    for (const [name, listed] of [
      ['a QRIS Initiated (01)', true],
      ['a QRIS Paying (02)', true],
      ['a QRIS Pending (03)', true],
      ['a closed VA', true],
      ['a paid QRIS (00)', false],
      ['a failed QRIS (06)', false],
    ] as const) {
      const { ref } = made.get(`${name}/pay`) as Made;
      assert.equal(list.includes(`/console/transactions/${ref}"`), listed, `${name} listed: ${listed}`);
    }
  });

  for (const c of cases) {
    const title = c.offers.length
      ? `${c.name}: offers ${c.offers.join(', ')}, which the gateway takes; it refuses the rest`
      : `${c.name}: offers nothing; the gateway refuses every action`;
    it(title, async () => {
      for (const verb of verbsOf(c)) {
        const m = made.get(`${c.name}/${verb}`) as Made;
        const { offers, amountRequired } = await offeredOn(m.ref);
        assert.equal(offers[verb], c.offers.includes(verb), `${verb} offered on ${c.name}`);
        const { accepted, answer } = await attempt(c, m, verb, amountRequired);
        assert.equal(
          accepted,
          offers[verb],
          `${verb} on ${c.name}: ${offers[verb] ? 'offered, yet refused' : 'not offered, yet accepted'} (${JSON.stringify(answer)})`,
        );
      }
    });
  }

  it('an open-amount VA: the page asks for an amount, as the gateway refuses its bill of 0.00', async () => {
    const m = await va({ virtualAccountTrxType: 'O' });
    assert.equal((await offeredOn(m.ref)).amountRequired, true);
    const r = await gw.admin('POST', `/sandbox/va/${encodeURIComponent(m.vaNo as string)}/pay`, {});
    assert.equal(r.body.responseCode, '4042513', JSON.stringify(r.body));
    assert.equal((await offeredOn((await closedVa()).ref)).amountRequired, false, 'a closed VA: empty pays the bill');
  });
});
