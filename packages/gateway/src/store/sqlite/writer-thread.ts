import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { CommitStats } from '../store.ts';
import { configureConnection, SqliteWrites, type WriteOutcome } from './sqlite-writes.ts';
import {
  type FromWriter,
  MAIN_WRITING,
  serializeError,
  type ToWriter,
  type WriterData,
  type WriterOutcome,
} from './writer-protocol.ts';

// The writer thread (docs/adr/0009-sqlite-writer-thread.md): it owns the embedded store's connection
// for the hot writes. What the main thread hands it while a commit runs (and its fsync waits) is
// committed together in the next one; each batch is answered only after its COMMIT.

const data = workerData as WriterData;
const port = parentPort;
if (!port) throw new Error('writer-thread.ts runs as a worker thread');

const db = new Database(data.file);
configureConnection(db, data.pageCacheKib);
const writes = new SqliteWrites(db);
const flag = new Int32Array(data.mainWriting);

/** How often a batch refused for the lock (SQLITE_BUSY) is tried again before its callers are refused. */
const BUSY_ATTEMPTS = 5;

let queued: Array<Extract<ToWriter, { type: 'commit' }>> = [];
let scheduled = false;

function reply(message: FromWriter): void {
  port?.postMessage(message);
}

function commitQueued(): void {
  scheduled = false;
  const batches = queued;
  queued = [];
  if (batches.length === 0) return;
  const requests = batches.flatMap((b) => b.requests);
  let outcomes: WriteOutcome[];
  let seconds: number;
  const started = performance.now();
  for (let attempt = 1; ; attempt++) {
    // The main thread is writing (an operator's change, a settlement): it holds the lock for at most
    // its own statement or transaction; starting a commit now would make it wait on SQLite's busy
    // handler with its event loop blocked.
    while (Atomics.load(flag, 0) === MAIN_WRITING) Atomics.wait(flag, 0, MAIN_WRITING, 50);
    try {
      outcomes = writes.commit(requests);
      seconds = (performance.now() - started) / 1000;
      break;
    } catch (error) {
      // The main thread took the lock between the check above and BEGIN and kept it past the busy
      // timeout: the batch was rolled back whole, nothing of it is written; it is tried again.
      if ((error as { code?: string }).code === 'SQLITE_BUSY' && !db.inTransaction && attempt < BUSY_ATTEMPTS) continue;
      for (const b of batches) reply({ type: 'failed', id: b.id, error: serializeError(error) });
      return;
    }
  }
  let at = 0;
  let commit: CommitStats | undefined = { seconds, writes: requests.length };
  for (const b of batches) {
    const mine: WriterOutcome[] = outcomes
      .slice(at, at + b.requests.length)
      .map((o) => (o.ok ? o : { ok: false, error: serializeError(o.error) }));
    reply(commit ? { type: 'done', id: b.id, outcomes: mine, commit } : { type: 'done', id: b.id, outcomes: mine });
    commit = undefined;
    at += b.requests.length;
  }
}

port.on('message', (message: ToWriter) => {
  if (message.type === 'close') {
    commitQueued();
    db.close();
    reply({ type: 'closed' });
    port.close();
    return;
  }
  queued.push(message);
  if (!scheduled) {
    scheduled = true;
    setImmediate(commitQueued);
  }
});
reply({ type: 'ready' });
