import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createCheckoutLive, type LiveChange } from '../../src/checkout/live.ts';

const change = (referenceNo: string, seq: number, status = '00'): LiveChange => ({
  referenceNo,
  status,
  statusDesc: status === '00' ? 'Success' : null,
  seq,
});

describe('the checkout live hub', () => {
  it("tells each page of a transaction of that transaction's changes, and of no other", () => {
    const live = createCheckoutLive();
    const a1: LiveChange[] = [];
    const a2: LiveChange[] = [];
    const b: LiveChange[] = [];
    live.subscribe('A', (c) => a1.push(c));
    live.subscribe('A', (c) => a2.push(c));
    live.subscribe('B', (c) => b.push(c));
    live.publish(change('A', 2));
    live.publish(change('C', 2));
    assert.deepEqual(a1, [change('A', 2)]);
    assert.deepEqual(a2, [change('A', 2)]);
    assert.deepEqual(b, []);
  });

  it('lets one change through once: the same seq again (local and NOTIFY) or an older one is dropped', () => {
    const live = createCheckoutLive();
    const seen: number[] = [];
    live.subscribe('A', (c) => seen.push(c.seq));
    live.publish(change('A', 2, '03'));
    live.publish(change('A', 2, '03'));
    live.publish(change('A', 4));
    live.publish(change('A', 3, '03'));
    live.publish(change('A', 4));
    assert.deepEqual(seen, [2, 4]);
  });

  it('counts pages and transactions; an unsubscribe called twice counts once; a late one does nothing', () => {
    const live = createCheckoutLive();
    const stop1 = live.subscribe('A', () => undefined);
    const stop2 = live.subscribe('A', () => undefined);
    const stop3 = live.subscribe('B', () => undefined);
    assert.deepEqual([live.listeners, live.transactions], [3, 2]);
    stop1();
    stop1();
    assert.deepEqual([live.listeners, live.transactions], [2, 2]);
    stop2();
    stop3();
    assert.deepEqual([live.listeners, live.transactions], [0, 0]);
    const seen: number[] = [];
    live.subscribe('A', (c) => seen.push(c.seq));
    stop2();
    live.publish(change('A', 5));
    assert.deepEqual([seen, live.listeners], [[5], 1]);
  });

  it('leaves nothing behind after 10,000 pages subscribe and leave, in any order', () => {
    const live = createCheckoutLive();
    const stops: Array<() => void> = [];
    for (let i = 0; i < 10_000; i++) stops.push(live.subscribe(`R${i % 2_500}`, () => undefined));
    assert.deepEqual([live.listeners, live.transactions], [10_000, 2_500]);
    // Every other one first, then the rest from the end.
    for (let i = 0; i < stops.length; i += 2) stops[i]?.();
    assert.deepEqual([live.listeners, live.transactions], [5_000, 1_250]);
    for (let i = stops.length - 1; i >= 0; i--) stops[i]?.();
    assert.deepEqual([live.listeners, live.transactions], [0, 0]);
    // A change after they all left reaches nobody and creates nothing.
    live.publish(change('R1', 9));
    assert.equal(live.transactions, 0);
  });

  it('reports a listener that throws and still tells the others', () => {
    const errors: Array<[unknown, string]> = [];
    const live = createCheckoutLive({ onError: (e, ref) => errors.push([e, ref]) });
    const seen: number[] = [];
    const boom = new Error('page bug');
    live.subscribe('A', () => {
      throw boom;
    });
    live.subscribe('A', (c) => seen.push(c.seq));
    live.publish(change('A', 2));
    assert.deepEqual(seen, [2]);
    assert.deepEqual(errors, [[boom, 'A']]);
  });

  it('lets a page leave from inside its listener without skipping the next page', () => {
    const live = createCheckoutLive();
    const seen: string[] = [];
    const stop = live.subscribe('A', () => {
      seen.push('first');
      stop();
    });
    live.subscribe('A', () => seen.push('second'));
    live.publish(change('A', 2));
    live.publish(change('A', 3));
    assert.deepEqual(seen, ['first', 'second', 'second']);
  });

  it('on resync re-reads every transaction waited for, delivers only what is newer, then calls onResync', async () => {
    const current = new Map([
      ['A', change('A', 3)],
      ['B', change('B', 2, '03')],
    ]);
    const reads: string[] = [];
    const live = createCheckoutLive({
      read: async (ref) => {
        reads.push(ref);
        return current.get(ref);
      },
    });
    const seen: string[] = [];
    live.subscribe('A', (c) => seen.push(`A${c.seq}`), { onResync: () => seen.push('A resync') });
    live.subscribe('B', (c) => seen.push(`B${c.seq}`));
    live.subscribe('C', (c) => seen.push(`C${c.seq}`), { onResync: () => seen.push('C resync') });
    live.publish(change('B', 2, '03'));
    await live.resync();
    assert.deepEqual(reads.sort(), ['A', 'B', 'C']);
    assert.deepEqual(seen, ['B2', 'A3', 'A resync', 'C resync']);
  });

  it('runs a resync asked for during one once more after it, not in parallel', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    let reads = 0;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const live = createCheckoutLive({
      read: async (ref) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        reads++;
        if (reads === 1) await gate;
        inFlight--;
        return change(ref, reads);
      },
    });
    const seen: number[] = [];
    live.subscribe('A', (c) => seen.push(c.seq));
    const first = live.resync();
    const second = live.resync();
    const third = live.resync();
    release();
    await Promise.all([first, second, third]);
    assert.deepEqual([reads, maxInFlight, seen], [2, 1, [1, 2]]);
  });

  it('reports a read that fails during a resync and carries on with the others', async () => {
    const errors: string[] = [];
    const live = createCheckoutLive({
      read: async (ref) => {
        if (ref === 'A') throw new Error('database away');
        return change(ref, 7);
      },
      onError: (e, ref) => errors.push(`${ref}: ${(e as Error).message}`),
    });
    const seen: string[] = [];
    live.subscribe('A', (c) => seen.push(`A${c.seq}`));
    live.subscribe('B', (c) => seen.push(`B${c.seq}`));
    await live.resync();
    assert.deepEqual([seen, errors], [['B7'], ['A: database away']]);
  });

  it('on close tells every page to end and forgets them', async () => {
    const live = createCheckoutLive();
    const closed: string[] = [];
    live.subscribe('A', () => undefined, { onClose: () => closed.push('A1') });
    live.subscribe('A', () => undefined, { onClose: () => closed.push('A2') });
    const stopB = live.subscribe('B', () => undefined, { onClose: () => closed.push('B') });
    await live.close();
    assert.deepEqual([closed, live.listeners, live.transactions], [['A1', 'A2', 'B'], 0, 0]);
    stopB();
    assert.equal(live.listeners, 0);
  });
});
