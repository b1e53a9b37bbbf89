import { setImmediate as nextTurn } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { isNestedDeeper, MAX_JSON_DEPTH } from '@snapgate/snap';
import { parseReportCsv, parseReportJson, ReportError, type ReportItem } from './reconciliation-report.ts';

// docs/books.md#the-report: a provider's report read from its bytes (UTF-8, then CSV or JSON,
// every field checked). Reading 100,000 lines takes the CPU for half a second, and JSON.parse of an
// 8 MiB body alone 60-130 ms, which cannot be cut into slices: a large report is read on a thread
// of its own, so the gateway's event loop goes on answering meanwhile. The thread hands the items
// back as a few packed columns (structured-cloning 100,000 objects costs the receiving loop
// 200 ms), which the loop unpacks in slices.

export type ReportFormat = 'csv' | 'json';

/** A report up to this size is read on the calling thread (some 4,000 lines, ~20 ms). */
const INLINE_BYTES = 256 * 1024;
/** How many items are unpacked between two turns of the event loop. */
const ITEMS_PER_SLICE = 10_000;
/** Separates the values of a packed column: no field may hold a NUL, so none is cut by it. */
const SEPARATOR = '\u0000';

/** A strict UTF-8 decoder: the BOM is kept (the CSV reader skips it, JSON refuses it). */
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lenient = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * Where the first byte of `bytes` that does not start a well-formed UTF-8 sequence is (the rules
 * of TextDecoder: no overlong forms, no surrogates, nothing past U+10FFFF); -1 when there is none.
 */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; ) {
    const lead = bytes[i] as number;
    if (lead < 0x80) {
      i++;
      continue;
    }
    let length: number;
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) length = 2;
    else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3;
      if (lead === 0xe0) low = 0xa0;
      if (lead === 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4;
      if (lead === 0xf0) low = 0x90;
      if (lead === 0xf4) high = 0x8f;
    } else return i;
    for (let k = 1; k < length; k++) {
      const next = bytes[i + k];
      if (next === undefined || next < (k === 1 ? low : 0x80) || next > (k === 1 ? high : 0xbf)) return i;
    }
    i += length;
  }
  return -1;
}

/**
 * A report's text. Its first byte that is not UTF-8 becomes U+DC80–U+DCFF (the byte's own value
 * on U+DC00, as Python's surrogateescape does): text no field may hold, so the field that holds it
 * is refused by its line and name (reconciliation-report.ts); what follows is read leniently.
 */
export function reportText(bytes: Uint8Array): string {
  const at = firstInvalidUtf8(bytes);
  if (at === -1) return strict.decode(bytes);
  const marked = String.fromCharCode(0xdc00 + (bytes[at] as number));
  return `${strict.decode(bytes.subarray(0, at))}${marked}${lenient.decode(bytes.subarray(at + 1))}`;
}

/**
 * Reads a JSON report from its text. Text that is not JSON is refused naming where it stops being
 * JSON (the text's line and column), never echoing it.
 */
export function parseReportJsonText(text: string): ReportItem[] {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (e) {
    const at = /at position (\d+)/.exec(e instanceof Error ? e.message : '')?.[1];
    let where = '';
    if (at !== undefined) {
      const before = text.slice(0, Number(at));
      const lineStart = before.lastIndexOf('\n') + 1;
      where = ` (line ${before.split('\n').length}, column ${before.length - lineStart + 1} of the text)`;
    }
    throw new ReportError(`body: not JSON${where}`);
  }
  return parseReportJson(body);
}

/**
 * Reads a report from its bytes, on the calling thread. Throws ReportError at the first fault. A
 * JSON body is held to the admin API's depth here: its size spares it the check before the route.
 */
export function readReport(bytes: Uint8Array, format: ReportFormat): ReportItem[] {
  if (format === 'json' && isNestedDeeper(bytes))
    throw new ReportError(`body: nested deeper than ${MAX_JSON_DEPTH} levels`);
  const text = reportText(bytes);
  return format === 'csv' ? parseReportCsv(text) : parseReportJsonText(text);
}

/** Report items as they cross from the thread: one string per text column, the times as float64. */
export interface PackedItems {
  count: number;
  referenceNos: string;
  providerReferences: string;
  amounts: string;
  statuses: string;
  paidAtMs: Float64Array;
}

/** Packs items whose lines are 1, 2, … in order (as both readers make them); null as ''. */
export function packItems(items: ReportItem[]): PackedItems {
  const paidAtMs = new Float64Array(items.length);
  items.forEach((item, i) => {
    if (item.line !== i + 1) throw new TypeError(`item ${i} has line ${item.line}`);
    paidAtMs[i] = item.paidAtMs;
  });
  const column = (value: (item: ReportItem) => string | null) => items.map((i) => value(i) ?? '').join(SEPARATOR);
  return {
    count: items.length,
    referenceNos: column((i) => i.referenceNo),
    providerReferences: column((i) => i.providerReference),
    amounts: column((i) => i.amount),
    statuses: column((i) => i.status),
    paidAtMs,
  };
}

/** The items of packItems again, a slice per turn of the event loop. */
export async function unpackItems(packed: PackedItems): Promise<ReportItem[]> {
  if (packed.count === 0) return [];
  const split = (column: string) => column.split(SEPARATOR);
  const [referenceNos, providerReferences, amounts, statuses] = [
    split(packed.referenceNos),
    split(packed.providerReferences),
    split(packed.amounts),
    split(packed.statuses),
  ] as [string[], string[], string[], string[]];
  const items: ReportItem[] = new Array(packed.count);
  for (let i = 0; i < packed.count; i++) {
    if (i > 0 && i % ITEMS_PER_SLICE === 0) await nextTurn();
    items[i] = {
      line: i + 1,
      referenceNo: referenceNos[i] || null,
      providerReference: providerReferences[i] || null,
      amount: amounts[i] as string,
      paidAtMs: packed.paidAtMs[i] as number,
      status: statuses[i] as string,
    };
  }
  return items;
}

/** What the thread answers. */
export type FromReportThread =
  | { ok: true; items: PackedItems }
  | { ok: false; error: { message: string; line: number | null; field: string | null } };

/**
 * Starts a thread that reads one report (report-thread.ts). Under tsx (sources run as TypeScript)
 * the thread registers tsx itself, as the SQLite writer's does: Node 20 does not hand a loader
 * registered with --import to worker threads.
 */
function startReportThread(bytes: Uint8Array, format: ReportFormat): Worker {
  const isTypeScript = import.meta.url.endsWith('.ts');
  const entry = new URL(`./report-thread${isTypeScript ? '.ts' : '.js'}`, import.meta.url).href;
  const source = isTypeScript
    ? `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`
    : `import(${JSON.stringify(entry)})`;
  // Its own copy, handed over whole: a Buffer may be a view of a larger pool, which cloning would copy.
  const own = new Uint8Array(bytes);
  return new Worker(source, {
    eval: true,
    workerData: { bytes: own, format },
    transferList: [own.buffer],
    name: 'snapgate-report-reader',
  });
}

/** Reads a report on a thread of its own, which ends with the read. */
function readInThread(bytes: Uint8Array, format: ReportFormat): Promise<ReportItem[]> {
  return new Promise((resolve, reject) => {
    const thread = startReportThread(bytes, format);
    let isAnswered = false;
    thread.once('message', (m: FromReportThread) => {
      isAnswered = true;
      if (m.ok) unpackItems(m.items).then(resolve, reject);
      else reject(new ReportError(m.error.message, m.error.line, m.error.field));
    });
    thread.once('error', reject);
    thread.once('exit', (code) => {
      if (!isAnswered) reject(new Error(`the report reader thread ended without an answer (exit code ${code})`));
    });
  });
}

/**
 * Reads reports: a small one at once, a large one on its own thread, one large report at a time
 * (each holds its bytes, its text and its items in memory until it is read).
 */
export function createReportReader(options: { inlineBytes?: number } = {}) {
  const inlineBytes = options.inlineBytes ?? INLINE_BYTES;
  let queue: Promise<unknown> = Promise.resolve();
  return {
    async read(bytes: Uint8Array, format: ReportFormat): Promise<ReportItem[]> {
      if (bytes.length <= inlineBytes) return readReport(bytes, format);
      const turn = queue.then(() => readInThread(bytes, format));
      queue = turn.catch(() => undefined);
      return turn;
    },
  };
}

export type ReportReader = ReturnType<typeof createReportReader>;
