import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { retryDelayMs } from '../../src/store/postgres/listener.ts';
import { createAnnouncer, parseAnnouncement, payloadsOf } from '../../src/store/postgres/status-notify.ts';

describe("the PostgreSQL listener's pieces", () => {
  it('reads an announcement (a list of changes, or one), and refuses what is not one (a foreign NOTIFY)', () => {
    assert.deepEqual(
      parseAnnouncement('[{"r" : "2611260001", "s" : "00", "q" : 2, "d" : "Success"}, {"r":"R","s":"06","q":3}]'),
      [
        { referenceNo: '2611260001', status: '00', seq: 2, statusDesc: 'Success' },
        { referenceNo: 'R', status: '06', seq: 3, statusDesc: null },
      ],
    );
    assert.deepEqual(parseAnnouncement('{"r":"R","s":"06","q":3,"d":null}'), [
      { referenceNo: 'R', status: '06', seq: 3, statusDesc: null },
    ]);
    for (const foreign of [
      '',
      'hello',
      'null',
      '[]',
      '{"r":"R","s":"00"}',
      '{"r":"R","s":"00","q":"2"}',
      '{"r":1,"s":"00","q":2}',
    ])
      assert.deepEqual(parseAnnouncement(foreign), [], foreign);
  });

  it('sends the changes of one turn together, in payloads within the NOTIFY bound, and none twice', async () => {
    const sent: string[] = [];
    const announcer = createAnnouncer(
      async (p) => {
        sent.push(p);
      },
      () => undefined,
    );
    const long = 'x'.repeat(150);
    for (let i = 0; i < 200; i++) announcer.announce({ referenceNo: `R${i}`, status: '00', statusDesc: long, seq: 2 });
    assert.deepEqual(sent, [], 'nothing before the turn ends');
    await announcer.drain();
    assert.ok(sent.length > 1, 'more than one payload');
    assert.ok(sent.every((p) => Buffer.byteLength(p) <= 8000));
    const heard = sent.flatMap((p) => parseAnnouncement(p));
    assert.deepEqual(
      heard.map((c) => c.referenceNo),
      Array.from({ length: 200 }, (_, i) => `R${i}`),
    );
    assert.deepEqual(payloadsOf([]), []);

    // A slow batch and a fast one after it: drain waits for both (shutdown loses none).
    const slow: string[] = [];
    let first = true;
    const both = createAnnouncer(async (p) => {
      if (first) {
        first = false;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      slow.push(p);
    });
    both.announce({ referenceNo: 'S1', status: '00', statusDesc: null, seq: 2 });
    await new Promise((resolve) => setImmediate(resolve));
    both.announce({ referenceNo: 'S2', status: '00', statusDesc: null, seq: 2 });
    await both.drain();
    assert.deepEqual(
      slow
        .flatMap((p) => parseAnnouncement(p))
        .map((c) => c.referenceNo)
        .sort(),
      ['S1', 'S2'],
    );
    await announcer.drain();
    assert.equal(sent.flatMap((p) => parseAnnouncement(p)).length, 200, 'none twice');
  });

  it('waits 250 ms before the first reconnect, doubling to at most 5 s, spread ±20 %', () => {
    const mid = () => 0.5;
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5, 10, 50].map((n) => retryDelayMs(n, mid)),
      [250, 500, 1_000, 2_000, 4_000, 5_000, 5_000, 5_000],
    );
    assert.equal(
      retryDelayMs(0, () => 0),
      200,
    );
    assert.equal(
      retryDelayMs(9, () => 1),
      6_000,
    );
  });
});
