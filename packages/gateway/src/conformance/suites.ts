// The operations in the order a run checks them, each with its scenario rows. Later rows use what
// earlier ones created: the QRIS generated is queried, canceled, then refused a refund; the VA
// created is read, updated, then deleted.
import { OPERATIONS } from './operations.ts';
import { qrisCancelScenarios } from './scenarios/qris-cancel.ts';
import { qrisGenerateScenarios } from './scenarios/qris-generate.ts';
import { qrisQueryScenarios } from './scenarios/qris-query.ts';
import { qrisRefundScenarios } from './scenarios/qris-refund.ts';
import { tokenScenarios } from './scenarios/token.ts';
import { vaCreateScenarios } from './scenarios/va-create.ts';
import { vaDeleteScenarios } from './scenarios/va-delete.ts';
import { vaInquiryScenarios } from './scenarios/va-inquiry.ts';
import { vaStatusScenarios } from './scenarios/va-status.ts';
import { vaUpdateScenarios } from './scenarios/va-update.ts';
import type { Operation, Scenario } from './types.ts';

export interface Suite {
  operation: Operation;
  scenarios: Scenario[];
}

export const SUITES: Suite[] = [
  { operation: OPERATIONS.token, scenarios: tokenScenarios },
  { operation: OPERATIONS.qrisGenerate, scenarios: qrisGenerateScenarios },
  { operation: OPERATIONS.qrisQuery, scenarios: qrisQueryScenarios },
  { operation: OPERATIONS.qrisCancel, scenarios: qrisCancelScenarios },
  { operation: OPERATIONS.qrisRefund, scenarios: qrisRefundScenarios },
  { operation: OPERATIONS.vaCreate, scenarios: vaCreateScenarios },
  { operation: OPERATIONS.vaInquiry, scenarios: vaInquiryScenarios },
  { operation: OPERATIONS.vaStatus, scenarios: vaStatusScenarios },
  { operation: OPERATIONS.vaUpdate, scenarios: vaUpdateScenarios },
  { operation: OPERATIONS.vaDelete, scenarios: vaDeleteScenarios },
];
