import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig, parseRetrySchedule } from '../src/config.ts';

describe('configuration', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    assert.equal(c.port, 8080);
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.mode, 'sandbox');
    assert.equal(c.sqlitePath, './data/snapgate.db');
    assert.equal(c.rateLimitPerMin, 600);
    assert.equal(c.clockSkewSec, 300);
    assert.equal(c.tokenTtlSec, 900);
    assert.equal(c.callbackTimeoutMs, 10_000);
    assert.deepEqual(
      c.retryScheduleMs,
      [0, 10e3, 60e3, 300e3, 900e3, 1800e3, 3600e3, 7200e3, 21600e3, 43200e3, 86400e3],
    );
    assert.equal(c.publicUrl, 'http://127.0.0.1:8080');
  });

  it('refuses a database under /proc, /sys or /dev (start-up would spin there), and takes /dev/shm', () => {
    for (const bad of ['/proc/self/snapgate.db', '/proc', '/sys/kernel/x.db', '/dev/null', '/dev/x/snapgate.db']) {
      assert.throws(() => loadConfig({ SNAPGATE_DB: bad }), /SNAPGATE_DB: must be a file on a disk/, bad);
    }
    assert.equal(loadConfig({ SNAPGATE_DB: '/dev/shm/snapgate.db' }).sqlitePath, '/dev/shm/snapgate.db');
    assert.equal(loadConfig({ SNAPGATE_DB: '/var/lib/proc/snapgate.db' }).sqlitePath, '/var/lib/proc/snapgate.db');
  });

  it('commits SQLite’s hot writes on a writer thread unless told inline, and refuses anything else', () => {
    assert.equal(loadConfig({}).sqliteWriter, 'thread');
    assert.equal(loadConfig({ SNAPGATE_SQLITE_WRITER: 'inline' }).sqliteWriter, 'inline');
    for (const bad of ['threads', 'INLINE', 'main']) {
      assert.throws(() => loadConfig({ SNAPGATE_SQLITE_WRITER: bad }), /SNAPGATE_SQLITE_WRITER/, bad);
    }
  });

  it('has the books’ and the hardening’s defaults', () => {
    const c = loadConfig({});
    assert.deepEqual(c.settlementSchedule, { kind: 'daily', minuteOfDay: 0 });
    assert.equal(c.dbStatementTimeoutMs, 5_000);
    assert.equal(c.authFailureLimit, 20);
  });

  it('listens for metrics on SNAPGATE_METRICS_HOST, by default SNAPGATE_HOST', () => {
    assert.equal(loadConfig({ SNAPGATE_HOST: '0.0.0.0' }).metricsHost, '0.0.0.0');
    assert.equal(loadConfig({ SNAPGATE_HOST: '0.0.0.0', SNAPGATE_METRICS_HOST: '127.0.0.1' }).metricsHost, '127.0.0.1');
    assert.deepEqual(loadConfig({}).stagingAllow.text, []);
    assert.equal(loadConfig({}).caFile, undefined);
  });

  it('turns the rate limit off with "off"', () => {
    assert.equal(loadConfig({ SNAPGATE_RATE_LIMIT: 'off' }).rateLimitPerMin, undefined);
  });

  it('lists every invalid setting in one error', () => {
    assert.throws(
      () =>
        loadConfig({
          SNAPGATE_PORT: 'eighty',
          SNAPGATE_MODE: 'live',
          SNAPGATE_RATE_LIMIT: '-5',
          SNAPGATE_RETRY_SCHEDULE: '1s,soon',
          SNAPGATE_DATABASE_URL: 'mysql://x',
          SNAPGATE_ADMIN_TOKEN: 'short',
        }),
      (e: unknown) => {
        assert.ok(e instanceof ConfigError);
        const names = e.problems.map((p) => p.split(':')[0]).sort();
        assert.deepEqual(names, [
          'SNAPGATE_ADMIN_TOKEN',
          'SNAPGATE_DATABASE_URL',
          'SNAPGATE_MODE',
          'SNAPGATE_PORT',
          'SNAPGATE_RATE_LIMIT',
          'SNAPGATE_RETRY_SCHEDULE',
        ]);
        return true;
      },
    );
  });

  it('reads the money-out settings: the transfer status schedule and the approval threshold', () => {
    const c = loadConfig({});
    // 10s,30s,1m,5m,10m,30m,1h, then hourly for 2 days.
    assert.deepEqual(
      c.transferStatusScheduleMs.slice(0, 8),
      [10_000, 30_000, 60_000, 300_000, 600_000, 1_800_000, 3_600_000, 3_600_000],
    );
    assert.equal(c.transferStatusScheduleMs.length, 7 + 48);
    assert.equal(c.payoutApprovalAboveSen, 10_000_000_000n);
    const set = loadConfig({ SNAPGATE_TRANSFER_STATUS_SCHEDULE: '1s,2m', SNAPGATE_PAYOUT_APPROVAL_ABOVE: '0' });
    assert.deepEqual(set.transferStatusScheduleMs, [1_000, 120_000]);
    assert.equal(set.payoutApprovalAboveSen, 0n);
    assert.equal(loadConfig({ SNAPGATE_PAYOUT_APPROVAL_ABOVE: '2500000.50' }).payoutApprovalAboveSen, 250_000_050n);
    for (const [name, bad] of [
      ['SNAPGATE_TRANSFER_STATUS_SCHEDULE', '10s,later'],
      ['SNAPGATE_PAYOUT_APPROVAL_ABOVE', '1e6'],
      ['SNAPGATE_PAYOUT_APPROVAL_ABOVE', '-1.00'],
      ['SNAPGATE_PAYOUT_APPROVAL_ABOVE', '100.5'],
    ] as const) {
      assert.throws(
        () => loadConfig({ [name]: bad }),
        (e: unknown) => e instanceof ConfigError && e.problems.some((p) => p.startsWith(name)),
        `${name}=${bad}`,
      );
    }
  });

  it('parses retry schedules', () => {
    assert.deepEqual(parseRetrySchedule('0s, 250ms,2m,1h,1d'), [0, 250, 120_000, 3_600_000, 86_400_000]);
    assert.equal(parseRetrySchedule('1x'), undefined);
    assert.equal(parseRetrySchedule(''), undefined);
  });
});
