import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type { CommitStats } from '../store.ts';
import type { SqliteWrites, WriteOutcome, WriteRequest } from './sqlite-writes.ts';
import { deserializeError, type FromWriter, MAIN_WRITING, type ToWriter, type WriterData } from './writer-protocol.ts';

/** Where the embedded store's hot writes run and commit (docs/adr/0009-sqlite-writer-thread.md). */
export interface Writer {
  readonly kind: 'thread' | 'inline';
  /** Commits the writes together; their outcomes after the COMMIT. Rejects when the commit itself failed. */
  submit(requests: WriteRequest[]): Promise<WriteOutcome[]>;
  /** Runs a write of the main thread's own connection (the writer starts no commit meanwhile). */
  mainWrite<T>(work: () => T): T;
  /** Answers what was submitted, then stops. */
  close(): Promise<void>;
  /** Resolves once the writes can run (the thread has opened the database); rejects with WriterLost if not. */
  readonly ready: Promise<void>;
  /** Gone: every write is refused. */
  readonly isLost: boolean;
  /**
   * Told of every group commit that succeeded (the store's metrics), before its callers are
   * answered: it must not throw (SqliteStore's guards each of its observers).
   */
  onCommit: ((commit: CommitStats) => void) | undefined;
}

/** On the store's own connection, in the calling thread (an in-memory database, test fault hooks). */
export class InlineWriter implements Writer {
  readonly kind = 'inline' as const;
  readonly ready = Promise.resolve();
  readonly isLost = false;
  onCommit: ((commit: CommitStats) => void) | undefined;
  constructor(private readonly writes: SqliteWrites) {}

  submit(requests: WriteRequest[]): Promise<WriteOutcome[]> {
    try {
      const started = performance.now();
      const outcomes = this.writes.commit(requests);
      this.onCommit?.({ seconds: (performance.now() - started) / 1000, writes: requests.length });
      return Promise.resolve(outcomes);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  mainWrite<T>(work: () => T): T {
    return work();
  }

  async close(): Promise<void> {}
}

/** A gateway without its writer answers nothing more: a supervisor (systemd, the container runtime) restarts it. */
export function exitForSupervisor(e: WriterLost): void {
  process.stderr.write(`snapgate: ${e.message}; exiting so that a supervisor restarts the gateway\n`);
  process.exit(1);
}

/** Why the writer thread is gone, for whoever must end the process. */
export class WriterLost extends Error {
  constructor(reason: string, cause?: unknown) {
    super(`the SQLite writer thread stopped (${reason})`, { cause });
    this.name = 'WriterLost';
  }
}

/**
 * Starts the writer thread. Under tsx (sources run as TypeScript) the thread registers tsx itself:
 * Node 20 does not hand a loader registered with --import or register() to worker threads.
 */
function startWorker(data: WriterData): Worker {
  const ownUrl = import.meta.url;
  const extension = ownUrl.endsWith('.ts') ? '.ts' : '.js';
  const entry = new URL(`./writer-thread${extension}`, ownUrl).href;
  const source =
    extension === '.ts'
      ? `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`
      : `import(${JSON.stringify(entry)})`;
  return new Worker(source, { eval: true, workerData: data, name: 'snapgate-sqlite-writer' });
}

/** The hot writes on their own thread and connection: the main thread's event loop never waits for a commit. */
export class ThreadWriter implements Writer {
  readonly kind = 'thread' as const;
  readonly worker: Worker;
  onCommit: ((commit: CommitStats) => void) | undefined;
  private readonly flag: Int32Array;
  private readonly waiting = new Map<number, { resolve: (o: WriteOutcome[]) => void; reject: (e: unknown) => void }>();
  private nextId = 1;
  private mainWriters = 0;
  private isReady = false;
  private lost: WriterLost | undefined;
  private closing: Promise<void> | undefined;

  constructor(file: string, pageCacheKib: number, onLost: (e: WriterLost) => void) {
    const mainWriting = new SharedArrayBuffer(4);
    this.flag = new Int32Array(mainWriting);
    this.worker = startWorker({ file, pageCacheKib, mainWriting });
    let readiness: { resolve: () => void; reject: (e: unknown) => void } | undefined;
    this.ready = new Promise<void>((resolve, reject) => {
      readiness = { resolve, reject };
    });
    // Nobody need wait for it: a failure is also told through onLost.
    this.ready.catch(() => undefined);
    this.worker.on('message', (m: FromWriter) => {
      if (m.type === 'ready') {
        this.isReady = true;
        if (this.waiting.size === 0 && !this.closing) this.worker.unref();
        readiness?.resolve();
      } else this.received(m);
    });
    const fail = (reason: string, cause?: unknown) => {
      if (this.lost) return;
      this.lost = new WriterLost(reason, cause);
      if (!this.isReady) readiness?.reject(this.lost);
      for (const w of this.waiting.values()) w.reject(this.lost);
      this.waiting.clear();
      if (!this.closing) onLost(this.lost);
    };
    this.worker.on('error', (e) => fail(e instanceof Error ? e.message : String(e), e));
    this.worker.on('exit', (code) => fail(`exit code ${code}`));
    // The thread keeps the process alive while it starts and while a commit is awaited (as a socket would).
  }

  submit(requests: WriteRequest[]): Promise<WriteOutcome[]> {
    if (this.lost) return Promise.reject(this.lost);
    const id = this.nextId++;
    try {
      this.post({ type: 'commit', id, requests });
    } catch (e) {
      // A value that cannot cross to the thread (a function, say): that write alone is refused.
      if (requests.length === 1) return Promise.reject(e);
      return Promise.all(
        requests.map((r) =>
          this.submit([r]).then(
            ([o]) => o as WriteOutcome,
            (error: unknown): WriteOutcome => ({ ok: false, error }),
          ),
        ),
      );
    }
    return new Promise((resolve, reject) => {
      if (this.waiting.size === 0) this.worker.ref();
      this.waiting.set(id, { resolve, reject });
    });
  }

  /** Resolves once the thread has opened the database; rejects with WriterLost if it could not. */
  readonly ready: Promise<void>;

  /** Gone: every write is refused (the owner has been told). */
  get isLost(): boolean {
    return this.lost !== undefined;
  }

  mainWrite<T>(work: () => T): T {
    if (this.mainWriters++ === 0) Atomics.store(this.flag, 0, MAIN_WRITING);
    let result: T;
    try {
      result = work();
    } catch (e) {
      this.mainDone();
      throw e;
    }
    // An explicit transaction awaits its statements: the flag stays up until it ends.
    if (result instanceof Promise) return result.finally(() => this.mainDone()) as T;
    this.mainDone();
    return result;
  }

  private mainDone(): void {
    if (--this.mainWriters > 0) return;
    Atomics.store(this.flag, 0, 0);
    Atomics.notify(this.flag, 0);
  }

  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      if (this.lost) return resolve();
      this.worker.ref();
      this.worker.once('exit', () => resolve());
      this.post({ type: 'close' });
    });
    return this.closing;
  }

  private post(message: ToWriter): void {
    this.worker.postMessage(message);
  }

  private received(m: FromWriter): void {
    if (m.type !== 'done' && m.type !== 'failed') return;
    if (m.type === 'done' && m.commit) this.onCommit?.(m.commit);
    const w = this.waiting.get(m.id);
    if (!w) return;
    this.waiting.delete(m.id);
    if (this.waiting.size === 0 && !this.closing && this.isReady) this.worker.unref();
    if (m.type === 'failed') w.reject(deserializeError(m.error));
    else w.resolve(m.outcomes.map((o) => (o.ok ? o : { ok: false, error: deserializeError(o.error) })));
  }
}
