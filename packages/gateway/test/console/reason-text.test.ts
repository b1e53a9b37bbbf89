// A status change's reason as its reader sees it (console/transaction-views.ts): an operator reads
// the provider's name; a merchant reads `the acquirer` or `the bank`, and never which admin key of
// the operator applied a payment from a provider's report.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { reasonText } from '../../src/console/transaction-views.ts';

const ACQUIRER = '0b8e4c2a-5f3d-4e1b-9a7c-2d6f8e0a1b3c';
const applied = `applied from reconciliation rec_9f2 line 3 by admin key ops-night.1 (acquirer ${ACQUIRER})`;

describe('a status change’s reason, as its reader sees it', () => {
  it('names the provider to the operator, and who applied a payment', () => {
    const reader = { kind: 'operator' as const, names: new Map([[ACQUIRER, 'Sandbox Acquirer']]), banks: new Map() };
    assert.equal(
      reasonText(applied, reader),
      'applied from reconciliation rec_9f2 line 3 by admin key ops-night.1 (acquirer Sandbox Acquirer)',
    );
    assert.equal(reasonText(`notified by acquirer ${ACQUIRER}`, reader), 'notified by acquirer Sandbox Acquirer');
  });

  it('tells a merchant the acquirer and the operator, not which provider or key', () => {
    const reader = { kind: 'merchant' as const };
    assert.equal(
      reasonText(applied, reader),
      'applied from reconciliation rec_9f2 line 3 by the operator (the acquirer)',
    );
    assert.equal(reasonText('payment flag PRQ-1 from bank 014', reader), 'payment flag PRQ-1 from the bank');
  });
});
