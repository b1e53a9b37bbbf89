import type { Row } from '../rows.ts';
import { firstRow, type Sql } from '../sql.ts';
import type { CertificationRecord } from '../store.ts';

// Webhook certification runs of a merchant, with their whole report.

function certificationFromRow(r: Row): CertificationRecord {
  return {
    id: String(r.id),
    merchantId: String(r.merchant_id),
    startedAt: Number(r.started_at),
    finishedAt: Number(r.finished_at),
    passed: Number(r.passed) === 1,
    report: String(r.report),
  };
}

export async function insertCertification(sql: Sql, run: CertificationRecord): Promise<void> {
  await sql.run(
    'INSERT INTO certifications (id, merchant_id, started_at, finished_at, passed, report) VALUES (?, ?, ?, ?, ?, ?)',
    [run.id, run.merchantId, run.startedAt, run.finishedAt, run.passed ? 1 : 0, run.report],
  );
}

export async function listCertifications(sql: Sql, merchantId: string): Promise<CertificationRecord[]> {
  const rows = await sql.all('SELECT * FROM certifications WHERE merchant_id = ? ORDER BY started_at DESC, id DESC', [
    merchantId,
  ]);
  return rows.map(certificationFromRow);
}

export async function findCertification(sql: Sql, id: string): Promise<CertificationRecord | undefined> {
  const r = await firstRow(sql.all('SELECT * FROM certifications WHERE id = ?', [id]));
  return r ? certificationFromRow(r) : undefined;
}
