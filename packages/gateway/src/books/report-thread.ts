import { parentPort, workerData } from 'node:worker_threads';
import { ReportError } from './reconciliation-report.ts';
import { type FromReportThread, packItems, type ReportFormat, readReport } from './report-reader.ts';

// The thread that reads one large report (report-reader.ts), off the gateway's event loop: it
// answers the packed items or the report's first fault, then ends.

const port = parentPort;
if (!port) throw new Error('report-thread.ts runs as a worker thread');
const { bytes, format } = workerData as { bytes: Uint8Array; format: ReportFormat };

let answer: FromReportThread;
try {
  answer = { ok: true, items: packItems(readReport(bytes, format)) };
} catch (e) {
  // Anything else is the thread's own failure: thrown, it reaches the gateway as the worker's error.
  if (!(e instanceof ReportError)) throw e;
  answer = { ok: false, error: { message: e.message, line: e.line, field: e.field } };
}
port.postMessage(answer, answer.ok ? [answer.items.paidAtMs.buffer as ArrayBuffer] : []);
