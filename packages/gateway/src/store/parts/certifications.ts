import type { CertificationRecord } from '../../records/records.ts';
import type { Row } from '../rows.ts';
import { firstRow, type Sql } from '../sql.ts';

// A merchant's stored runs, with their whole report: webhook certifications and SNAP conformance
// runs (`suite`).

function certificationFromRow(r: Row): CertificationRecord {
  return {
    id: String(r.id),
    merchantId: String(r.merchant_id),
    startedAt: Number(r.started_at),
    finishedAt: Number(r.finished_at),
    passed: Number(r.passed) === 1,
    report: String(r.report),
    suite: String(r.suite),
  };
}

export async function insertCertification(sql: Sql, run: CertificationRecord): Promise<void> {
  await sql.run(
    'INSERT INTO certifications (id, merchant_id, started_at, finished_at, passed, report, suite) VALUES (?, ?, ?, ?, ?, ?, ?)',
    [run.id, run.merchantId, run.startedAt, run.finishedAt, run.passed ? 1 : 0, run.report, run.suite],
  );
}

export async function listCertifications(sql: Sql, merchantId: string, suite: string): Promise<CertificationRecord[]> {
  const rows = await sql.all(
    'SELECT * FROM certifications WHERE merchant_id = ? AND suite = ? ORDER BY started_at DESC, id DESC',
    [merchantId, suite],
  );
  return rows.map(certificationFromRow);
}

export async function findCertification(sql: Sql, id: string): Promise<CertificationRecord | undefined> {
  const r = await firstRow(sql.all('SELECT * FROM certifications WHERE id = ?', [id]));
  return r ? certificationFromRow(r) : undefined;
}
