import pg from 'pg';

/** What the instance's LISTEN connection tells its owner. */
export interface ListenerEvents {
  onNotification(channel: string, payload: string): void;
  /** Listening on every channel: the first time, and again after each reconnect. */
  onUp(): void;
  /** The connection is gone: until the next onUp, notifications are missed, not queued. */
  onDown(): void;
}

export interface PgListener {
  /** Settles after the first attempt to connect, whether it worked or not (a failure is retried). */
  readonly ready: Promise<void>;
  readonly isListening: boolean;
  close(): Promise<void>;
}

/** How pg_stat_activity names the connection (an operator finding it, a test ending it). */
export const LISTENER_APPLICATION_NAME = 'snapgate-listen';

const HEARTBEAT_MS = 10_000;
const HEARTBEAT_TIMEOUT_MS = 5_000;
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5_000;

/** The wait before reconnect number `failures` (0-based): doubling from 250 ms to 5 s, ±20 % so instances spread out. */
export function retryDelayMs(failures: number, random: () => number = Math.random): number {
  const base = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.min(failures, 10));
  return Math.round(base * (0.8 + 0.4 * random()));
}

/**
 * One dedicated connection per instance that LISTENs on `channels` for as long as the store is
 * open, reconnecting with backoff. keepAlive and a heartbeat: a half-open connection raises no
 * error by itself, and a silent listener must be known as one (its owner then treats the gap).
 */
export function startPgListener(options: {
  connectionString: string;
  channels: readonly string[];
  events: ListenerEvents;
}): PgListener {
  const { connectionString, channels, events } = options;
  let current: pg.Client | undefined;
  let isListening = false;
  let isClosed = false;
  let failures = 0;
  let retry: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    if (isClosed) return;
    const client = new pg.Client({ connectionString, keepAlive: true, application_name: LISTENER_APPLICATION_NAME });
    let heartbeat: NodeJS.Timeout | undefined;
    let isDropped = false;
    // Once per connection, whichever sign of its loss comes first (an error, its end, a silent heartbeat).
    const drop = () => {
      if (isDropped) return;
      isDropped = true;
      if (heartbeat) clearInterval(heartbeat);
      const wasListening = current === client && isListening;
      if (current === client) {
        current = undefined;
        isListening = false;
      }
      client.end().catch(() => undefined);
      if (wasListening) events.onDown();
      if (isClosed) return;
      retry = setTimeout(() => void connect(), retryDelayMs(failures++));
      retry.unref();
    };
    client.on('error', drop);
    client.on('end', drop);
    client.on('notification', (n) => {
      if (!isDropped) events.onNotification(n.channel, n.payload ?? '');
    });
    try {
      await client.connect();
      for (const channel of channels) await client.query(`LISTEN ${channel}`);
      if (isDropped) return;
      if (isClosed) {
        isDropped = true;
        await client.end().catch(() => undefined);
        return;
      }
      current = client;
      isListening = true;
      failures = 0;
      heartbeat = setInterval(() => {
        const timeout = setTimeout(drop, HEARTBEAT_TIMEOUT_MS);
        client.query('SELECT 1').then(
          () => clearTimeout(timeout),
          () => {
            clearTimeout(timeout);
            drop();
          },
        );
      }, HEARTBEAT_MS);
      heartbeat.unref();
      events.onUp();
    } catch {
      drop();
    }
  };

  const ready = connect();
  return {
    ready,
    get isListening() {
      return isListening;
    },
    async close() {
      isClosed = true;
      if (retry) clearTimeout(retry);
      const client = current;
      current = undefined;
      isListening = false;
      await client?.end().catch(() => undefined);
    },
  };
}
