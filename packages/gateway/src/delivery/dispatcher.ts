import type { KeyObject } from 'node:crypto';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Clock } from '../clock.ts';
import { parseRetrySchedule } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { NotificationClaimer } from '../payments/status-change.ts';
import type { AttemptRecord, NotificationRecord } from '../records/records.ts';
import type { Store } from '../store/store.ts';
import { ackOf, callbackHeaders, callbackUrlOf, loggedCallbackHeaders } from './callback-signing.ts';
import { CallbackTokenFailed, createCallbackTokens, type TokenRequestRecord } from './callback-token.ts';
import type { DeliveryMetrics } from './delivery-metrics.ts';
import { nextRetryDelayMs, parseRetryAfter } from './retry-policy.ts';
import type { Sender } from './send.ts';

export interface DispatcherOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  sender: Sender;
  metrics: DeliveryMetrics;
  gatewayPrivateKey: KeyObject;
  retryScheduleMs: readonly number[];
  callbackTimeoutMs: number;
  /** How long a claim lasts before another worker may take the work over. */
  leaseMs?: number;
  maxInFlight?: number;
  claimBatch?: number;
  /** How often due work (retries, other instances' rows) is looked for. */
  pollMs?: number;
  /**
   * Each claim and each batch of results is a durable commit (an fsync with SQLite FULL sync):
   * after a claim that came back short, the next waits this long so it finds more rows, and
   * results are gathered this long before they are written. A full claim goes again at once.
   */
  batchWindowMs?: number;
  random?: () => number;
}

export interface Dispatcher extends NotificationClaimer {
  readonly workerId: string;
  start(): void;
  /** New work was committed here: look now rather than at the next poll. */
  wake(): void;
  /** Stops claiming; waits for attempts in flight up to `boundMs`, records them, gives back the rest. */
  stop(boundMs?: number): Promise<void>;
  /** Runs until nothing is due and nothing is in flight (tests, CLI). */
  drain(): Promise<void>;
}

/**
 * The delivery loop: claim due notifications under a lease, POST them, and record every
 * attempt. Results are written in batches (better-sqlite3 blocks the event loop per
 * transaction, docs/benchmarks.md); the due time in the database is the truth, timers only wake the loop.
 */
export function createDispatcher(o: DispatcherOptions): Dispatcher {
  const workerId = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const leaseMs = o.leaseMs ?? o.callbackTimeoutMs + 5000;
  const maxInFlight = o.maxInFlight ?? 512;
  const claimBatch = o.claimBatch ?? 200;
  const pollMs = o.pollMs ?? 250;
  const batchWindowMs = o.batchWindowMs ?? 10;
  let shortClaimAt = Number.NEGATIVE_INFINITY;
  /**
   * The last claim came back short and nothing since can have made more due: the room a batch of
   * acknowledgements frees is then no reason to ask the store again (measured in
   * docs/benchmarks.md#delivery-against-bullmq: that claim was a writer transaction per batch, for
   * nothing). Work that can be due without a wake (retries, expired leases, other instances' rows)
   * is found by the poll.
   */
  let isCaughtUp = false;
  /**
   * Until then (performance.now()) every batch is followed by a claim anyway: a notification woken
   * for may wait behind an older one of its transaction being sent, and is due once that attempt
   * ends (see expectWork).
   */
  let blockedUntil = Number.NEGATIVE_INFINITY;
  const random = o.random ?? Math.random;
  const { store, clock, logger, sender, metrics } = o;
  const tokens = createCallbackTokens({ sender, clock, gatewayPrivateKey: o.gatewayPrivateKey });

  let running = false;
  let stopping = false;
  /** stop() is giving this worker's claims back: a notification claimed at birth is not sent. */
  let isGivingBack = false;
  let inFlight = 0;
  let pumping = false;
  let pumpAgain = false;
  let pollTimer: NodeJS.Timeout | undefined;
  let flushTimer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> = Promise.resolve();
  const results: AttemptRecord[] = [];
  /** Claimed and being sent right now: their claims are not given back at shutdown. */
  const sending = new Set<string>();
  const idleWaiters: Array<() => void> = [];

  async function deliver(n: NotificationRecord): Promise<AttemptRecord> {
    const startedAt = clock.now();
    // The store caches merchants exactly (ADR 0006): no lookup per callback, and a changed URL
    // or secret applies to the very next attempt.
    const merchant = await store.findMerchantById(n.merchantId);
    const scheduleMs = scheduleOf(merchant);
    const target = merchant ? callbackUrlOf(merchant, n.kind, n.callbackUrl) : undefined;
    const base = { notificationId: n.id, workerId, startedAt };
    if (!merchant || !target) {
      return finish(
        n,
        {
          ...base,
          url: target ?? null,
          requestHeaders: {},
          responseStatus: null,
          responseBody: null,
          durationMs: 0,
          outcome: 'error',
          error: 'merchant has no callback URL for this kind',
        },
        undefined,
        scheduleMs,
      );
    }
    const url = new URL(target);
    let accessToken: string | undefined;
    let tokenRequest: TokenRequestRecord | undefined;
    if (merchant.callbackSignature === 'snap-b2b') {
      try {
        ({ token: accessToken, taken: tokenRequest } = await tokens.get(merchant));
      } catch (e) {
        if (!(e instanceof CallbackTokenFailed)) throw e;
        // No token, no callback: the token request is this attempt, recorded and retried.
        const t = e.request;
        return finish(
          n,
          {
            ...base,
            url: t.url,
            requestHeaders: t.requestHeaders,
            responseStatus: t.status,
            responseBody: t.responseBody,
            durationMs: t.durationMs,
            outcome: 'error',
            error: `token request failed: ${e.message}`,
          },
          undefined,
          scheduleMs,
        );
      }
    }
    const headers = callbackHeaders({
      merchant,
      url,
      body: n.body,
      notificationId: n.id,
      nowMs: startedAt,
      gatewayPrivateKey: o.gatewayPrivateKey,
      accessToken,
      requestId: n.requestId,
    });
    const r = await sender.post(url, headers, n.body, ackOf(merchant, n.kind));
    if (accessToken && r.status === 401) tokens.drop(merchant.id, accessToken);
    // The attempt log shows the token request this attempt made, never a token.
    const logged = loggedCallbackHeaders(headers);
    if (tokenRequest) {
      logged['x-snapgate-token-request'] =
        `POST ${tokenRequest.url} → HTTP ${tokenRequest.status ?? '-'} in ${tokenRequest.durationMs} ms`;
    }
    return finish(
      n,
      {
        ...base,
        url: target,
        requestHeaders: logged,
        responseStatus: r.status,
        responseBody: r.responseBody,
        durationMs: r.durationMs,
        outcome: r.outcome,
        error: r.error,
      },
      r.status === 429 || r.status === 503 ? parseRetryAfter(r.retryAfter, clock.now()) : undefined,
      scheduleMs,
    );
  }

  // A merchant may have its own retry schedule (to test against a short one); parsed once.
  const schedules = new Map<string, readonly number[]>();
  function scheduleOf(merchant: { retrySchedule?: string | null } | undefined): readonly number[] {
    const text = merchant?.retrySchedule;
    if (!text) return o.retryScheduleMs;
    let parsed = schedules.get(text);
    if (!parsed) {
      parsed = parseRetrySchedule(text) ?? o.retryScheduleMs;
      schedules.set(text, parsed);
    }
    return parsed;
  }

  function finish(
    n: NotificationRecord,
    a: Omit<AttemptRecord, 'nextAttemptAt' | 'finishedAt'>,
    retryAfterMs: number | undefined,
    scheduleMs: readonly number[] = o.retryScheduleMs,
  ): AttemptRecord {
    const finishedAt = clock.now();
    const delay =
      a.outcome === 'acknowledged'
        ? undefined
        : nextRetryDelayMs({
            scheduleMs,
            attemptsMade: n.attemptCount + 1,
            retryAfterMs,
            random: random(),
          });
    metrics.attempts.inc({ outcome: a.outcome });
    if (a.outcome === 'acknowledged') metrics.deliveryLatency.observe((finishedAt - n.createdAt) / 1000);
    else
      logger.info(
        {
          notificationId: n.id,
          referenceNo: n.referenceNo,
          merchantId: n.merchantId,
          outcome: a.outcome,
          status: a.responseStatus,
          error: a.error,
        },
        'callback not acknowledged',
      );
    return { ...a, finishedAt, nextAttemptAt: delay === undefined ? undefined : finishedAt + delay };
  }

  function scheduleFlush(): void {
    if (results.length >= claimBatch) {
      void flush();
      return;
    }
    flushTimer ??= setTimeout(() => void flush(), batchWindowMs);
  }

  function flush(): Promise<void> {
    if (flushTimer) clearTimeout(flushTimer);
    flushTimer = undefined;
    flushing = flushing.then(async () => {
      if (results.length === 0) return;
      const batch = results.splice(0, results.length);
      try {
        const moved = await store.recordAttempts(batch);
        for (const n of moved) {
          if (n.state === 'dead')
            logger.warn(
              { notificationId: n.id, referenceNo: n.referenceNo, merchantId: n.merchantId },
              'notification is dead',
            );
        }
      } catch (err) {
        // The claims stay leased: once the lease runs out the work is claimed again (at-least-once).
        logger.error({ err, count: batch.length }, 'recording callback attempts failed');
      }
      // A retry may be due at once (a schedule of 0s steps).
      if (batch.some((a) => a.outcome !== 'acknowledged')) isCaughtUp = false;
      inFlight -= batch.length;
      settle(true);
    });
    return flushing;
  }

  /** A reserved place given back unused. */
  function giveBack(): void {
    inFlight--;
    // Its notification was committed unclaimed (or its claim goes back at stop()).
    expectWork();
    settle();
  }

  /** `isBatch`: only room was freed, by a recorded batch; a claim follows only if work can be waiting. */
  function settle(isBatch = false): void {
    if (!stopping && !(isBatch && isCaughtUp && performance.now() > blockedUntil)) wake();
    if (inFlight === 0 && results.length === 0) {
      for (const w of idleWaiters.splice(0)) w();
    }
  }

  /** Notifications claimed at birth: sent once their changes' callers have their answers. */
  const births: NotificationRecord[] = [];

  function launchBirths(): void {
    for (const n of births.splice(0)) {
      if (!running || isGivingBack) giveBack();
      else launch(n);
    }
  }

  /** Sends a notification this worker holds the claim of; its result joins the next batch. */
  function launch(n: NotificationRecord): void {
    sending.add(n.id);
    deliver(n)
      .catch((err): AttemptRecord => {
        logger.error({ err, notificationId: n.id }, 'callback attempt crashed');
        return finish(
          n,
          {
            notificationId: n.id,
            workerId,
            startedAt: clock.now(),
            url: null,
            requestHeaders: {},
            responseStatus: null,
            responseBody: null,
            durationMs: 0,
            outcome: 'error',
            error: 'internal error',
          },
          undefined,
        );
      })
      .then((r) => {
        sending.delete(n.id);
        results.push(r);
        scheduleFlush();
      });
  }

  /** The pump running now, for stop() to wait for (a claim may be on its way back from the store). */
  let pumpRun: Promise<number> = Promise.resolve(0);

  function pump(): Promise<number> {
    if (pumping) {
      pumpAgain = true;
      return Promise.resolve(0);
    }
    pumping = true;
    pumpRun = pumpClaims();
    return pumpRun;
  }

  async function pumpClaims(): Promise<number> {
    let claimedTotal = 0;
    try {
      do {
        pumpAgain = false;
        while (!stopping && inFlight < maxInFlight) {
          const asked = Math.min(claimBatch, maxInFlight - inFlight);
          const claimed = await store.claimDueNotifications(workerId, clock.now(), leaseMs, asked);
          // A wake while this claim ran (which it may not have seen) makes the loop claim again
          // (pumpAgain): that claim's answer sets the flag.
          isCaughtUp = claimed.length < asked;
          // stop() began while the claim was being committed: nothing is sent after it; its
          // releaseClaims (which waits for this pump) gives these back.
          if (stopping) break;
          if (claimed.length === 0) {
            shortClaimAt = performance.now();
            break;
          }
          claimedTotal += claimed.length;
          inFlight += claimed.length;
          for (const n of claimed) launch(n);
          // Fewer than asked for: nothing more is due right now.
          if (claimed.length < asked) {
            shortClaimAt = performance.now();
            break;
          }
        }
        // Stopped for want of room: more may be due.
        if (inFlight >= maxInFlight) isCaughtUp = false;
      } while (pumpAgain && !stopping);
    } catch (err) {
      logger.error({ err }, 'claiming notifications failed');
    } finally {
      pumping = false;
    }
    return claimedTotal;
  }

  /**
   * Something may be due that no claim has seen. The window covers an attempt that fetches a
   * merchant's token first (two timeouts). An older notification being sent by another instance
   * (PostgreSQL) ends unseen here: the newer one then goes at the next poll.
   */
  function expectWork(): void {
    isCaughtUp = false;
    blockedUntil = performance.now() + 2 * o.callbackTimeoutMs + batchWindowMs + 1000;
  }

  /** A claim whatever the last one found (the poll, start()): nothing in particular is expected. */
  function lookAgain(): void {
    isCaughtUp = false;
    wake();
  }

  let isWakeScheduled = false;
  function wake(): void {
    // Many commits in one turn wake the loop once.
    if (!running || stopping || isWakeScheduled) return;
    isWakeScheduled = true;
    const run = () => {
      isWakeScheduled = false;
      void pump().then(updateBacklog);
    };
    const wait = shortClaimAt + batchWindowMs - performance.now();
    if (wait > 0) setTimeout(run, wait);
    else setImmediate(run);
  }

  let backlogAt = 0;
  let backlogEveryMs = 1000;
  function updateBacklog(): void {
    const now = clock.now();
    if (now - backlogAt < backlogEveryMs) return;
    backlogAt = now;
    const started = performance.now();
    store
      .deliveryBacklog()
      .then((b) => {
        // Counting a large backlog takes a while (measured: 107 ms at 1,000,000 undelivered on
        // SQLite, where it blocks the loop): the gauges refresh at most once every 20 times that,
        // and at least every 30 s, so an alert on them never lags by minutes.
        backlogEveryMs = Math.min(30_000, Math.max(1000, 20 * (performance.now() - started)));
        metrics.backlog.set(b.undelivered);
        metrics.oldestUndeliveredAge.set(
          b.oldestUndeliveredAt === null ? 0 : Math.max(0, (clock.now() - b.oldestUndeliveredAt) / 1000),
        );
      })
      .catch(() => undefined);
  }

  return {
    workerId,
    reserve() {
      // A place counts as in flight from here: stop() waits for it, and the claim loop leaves it room.
      if (!running || stopping || inFlight >= maxInFlight) return undefined;
      inFlight++;
      let isSettled = false;
      return {
        workerId,
        leaseUntil: clock.now() + leaseMs,
        take(n) {
          if (isSettled) return;
          isSettled = true;
          // Not sent by this worker when its claims are being given back (stop(): the row may be
          // pending again already), or when the commit took so long that the lease left would not
          // cover a whole attempt (another worker could take the row over mid-send). Either way the
          // notification is claimed again (at once, or when its lease runs out): never lost, never
          // sent twice at the same time.
          const leaseLeft = (n.leaseUntil ?? 0) - clock.now();
          if (!running || isGivingBack || leaseLeft < o.callbackTimeoutMs + 1000) giveBack();
          else {
            // Sent from the next loop's timers: the changes committed with it answer their callers
            // first (a provider's flag, the next payment), and the writes those callers ask for in
            // this turn go to the store before these callbacks go out (measured in
            // docs/benchmarks.md#delivery-against-bullmq: +15 % against setImmediate, which ran
            // them ahead of those writes).
            births.push(n);
            if (births.length === 1) setTimeout(launchBirths, 0);
          }
        },
        release() {
          if (isSettled) return;
          isSettled = true;
          giveBack();
        },
      };
    },
    start() {
      if (running) return;
      running = true;
      stopping = false;
      pollTimer = setInterval(lookAgain, pollMs);
      pollTimer.unref();
      lookAgain();
    },
    wake() {
      expectWork();
      wake();
    },
    async stop(boundMs = 5000) {
      if (!running) return;
      stopping = true;
      if (pollTimer) clearInterval(pollTimer);
      await pumpRun;
      if (inFlight > 0) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, boundMs);
          idleWaiters.push(() => {
            clearTimeout(t);
            resolve();
          });
        });
      }
      await flush();
      isGivingBack = true;
      // Births not sent yet are not in `sending`: their claims go back below, so they are given back
      // now (isGivingBack), never sent after it (a start() right after this stop() would otherwise
      // send them while the row is free).
      launchBirths();
      const released = await store.releaseClaims(workerId, clock.now(), [...sending]);
      if (released > 0) logger.info({ released }, 'released unfinished callback claims');
      running = false;
      isGivingBack = false;
    },
    async drain() {
      for (;;) {
        const claimed = await pump();
        if (inFlight > 0) await new Promise<void>((resolve) => idleWaiters.push(resolve));
        await flushing;
        if (claimed === 0 && inFlight === 0) return;
      }
    },
  };
}
