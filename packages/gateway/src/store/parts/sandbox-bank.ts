import type { SandboxTransferRecord } from '../../records/payout-records.ts';
import { num, type Row } from '../rows.ts';
import { firstRow, type Sql } from '../sql.ts';
import { insertRow } from './access.ts';

// The built-in sandbox bank's transfers (sandbox mode): what it answered, one per partnerReferenceNo.

function transferFromRow(r: Row): SandboxTransferRecord {
  return {
    partnerReferenceNo: String(r.partner_reference_no),
    referenceNo: String(r.reference_no),
    serviceCode: String(r.service_code) as SandboxTransferRecord['serviceCode'],
    beneficiaryBankCode: String(r.beneficiary_bank_code),
    beneficiaryAccountNo: String(r.beneficiary_account_no),
    amount: String(r.amount),
    status: String(r.status) as SandboxTransferRecord['status'],
    outcome: String(r.outcome) as SandboxTransferRecord['outcome'],
    httpStatus: num(r.http_status),
    responseBody: String(r.response_body),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

/** The transfer by the caller's partnerReferenceNo, or by the bank's referenceNo. */
export async function findSandboxTransfer(
  sql: Sql,
  by: { partnerReferenceNo: string } | { referenceNo: string },
): Promise<SandboxTransferRecord | undefined> {
  const [column, value] =
    'partnerReferenceNo' in by ? ['partner_reference_no', by.partnerReferenceNo] : ['reference_no', by.referenceNo];
  const r = await firstRow(sql.all(`SELECT * FROM sandbox_bank_transfers WHERE ${column} = ?`, [value]));
  return r ? transferFromRow(r) : undefined;
}

/** Keeps a transfer unless its partnerReferenceNo has one already; the one kept either way. */
export async function insertSandboxTransfer(sql: Sql, t: SandboxTransferRecord): Promise<SandboxTransferRecord> {
  const [text, values] = insertRow('sandbox_bank_transfers', {
    partner_reference_no: t.partnerReferenceNo,
    reference_no: t.referenceNo,
    service_code: t.serviceCode,
    beneficiary_bank_code: t.beneficiaryBankCode,
    beneficiary_account_no: t.beneficiaryAccountNo,
    amount: t.amount,
    status: t.status,
    outcome: t.outcome,
    http_status: t.httpStatus,
    response_body: t.responseBody,
    created_at: t.createdAt,
    updated_at: t.updatedAt,
  });
  await sql.run(`${text} ON CONFLICT (partner_reference_no) DO NOTHING`, values);
  return (await findSandboxTransfer(sql, { partnerReferenceNo: t.partnerReferenceNo })) as SandboxTransferRecord;
}

/** A pending transfer ends as its `outcome`, once; the transfer as it is after. */
export async function endSandboxTransfer(
  sql: Sql,
  partnerReferenceNo: string,
  at: number,
): Promise<SandboxTransferRecord | undefined> {
  const r = await firstRow(
    sql.all(
      `UPDATE sandbox_bank_transfers SET status = outcome, updated_at = ?
       WHERE partner_reference_no = ? AND status = '03' RETURNING *`,
      [at, partnerReferenceNo],
    ),
  );
  return r ? transferFromRow(r) : findSandboxTransfer(sql, { partnerReferenceNo });
}
