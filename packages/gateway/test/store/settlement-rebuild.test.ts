// Migration 030 rebuilds settlements and admin_keys on SQLite (a CHECK cannot be widened there): a
// database upgraded with settlements, their items and keys keeps them all, and its rules.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { readMigrations } from '../../src/store/migrations.ts';

describe('migration 030 on SQLite', () => {
  it('keeps settlements, their items and admin keys, with their foreign keys and append-only rules', () => {
    const db = new Database(':memory:');
    db.pragma('foreign_keys = ON');
    const migrations = readMigrations('sqlite');
    for (const m of migrations.filter((m) => m.version < 30)) db.transaction(() => db.exec(m.sql)).immediate();
    db.exec(`
      INSERT INTO ledger_entries (id, at, kind, cause, merchant_id, amount_sen, fee_sen)
        VALUES (1, 1, 'payment', 'payment:R1', 'm1', 100000, 700);
      INSERT INTO settlements (id, merchant_id, cutoff, status, count, gross_sen, fees_sen, refunds_sen, net_sen,
          created_at, paid_at, bank_reference, slot)
        VALUES ('stl_1', 'm1', 3, 'paid', 1, 100000, 700, 0, 99300, 3, 4, 'TRF-1', '2026-11-27');
      INSERT INTO settlement_items (entry_id, settlement_id) VALUES (1, 'stl_1');
      INSERT INTO admin_keys (id, name, scope, token_sha256, created_at, sessions_not_before)
        VALUES ('key_1', 'bootstrap', 'admin', 'ab', 1, 2);`);
    const m30 = migrations.find((m) => m.version === 30);
    assert.ok(m30);
    db.transaction(() => db.exec(m30.sql)).immediate();

    assert.deepEqual(db.prepare('SELECT * FROM settlements').all(), [
      {
        id: 'stl_1',
        merchant_id: 'm1',
        cutoff: 3,
        status: 'paid',
        count: 1,
        gross_sen: 100000,
        fees_sen: 700,
        refunds_sen: 0,
        net_sen: 99300,
        created_at: 3,
        paid_at: 4,
        bank_reference: 'TRF-1',
        slot: '2026-11-27',
        payout_id: null,
        last_payout_error: null,
      },
    ]);
    assert.deepEqual(db.prepare('SELECT * FROM settlement_items').all(), [{ entry_id: 1, settlement_id: 'stl_1' }]);
    assert.deepEqual(db.prepare('SELECT id, scope, sessions_not_before FROM admin_keys').all(), [
      { id: 'key_1', scope: 'admin', sessions_not_before: 2 },
    ]);
    assert.deepEqual(db.pragma('foreign_key_check'), []);
    assert.throws(() => db.exec('DELETE FROM settlement_items'), /append-only/);
    assert.throws(() => db.exec("INSERT INTO settlement_items VALUES (2, 'nope')"), /FOREIGN KEY/);
    assert.throws(() => db.exec("UPDATE settlements SET status = 'lost'"), /CHECK/);
    db.exec("UPDATE settlements SET status = 'paying'");
    db.exec(
      "INSERT INTO admin_keys (id, name, scope, token_sha256, created_at) VALUES ('key_2', 'eyes', 'approve', 'cd', 5)",
    );
    // A settlement entry still takes its sums out of the unsettled total (migration 028's trigger, put back).
    db.exec(`INSERT INTO merchant_unsettled (merchant_id, volume_sen) VALUES ('m1', 100000) ON CONFLICT DO NOTHING;
      INSERT INTO ledger_entries (id, at, kind, cause, merchant_id, settlement_id, amount_sen, fee_sen)
        VALUES (2, 5, 'settlement', 'settlement:stl_1', 'm1', 'stl_1', 99300, 0);`);
    assert.deepEqual(db.prepare("SELECT volume_sen FROM merchant_unsettled WHERE merchant_id = 'm1'").get(), {
      volume_sen: 0,
    });
    db.close();
  });
});
