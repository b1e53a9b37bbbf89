import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ServerLimits } from '../config.ts';

/** Past this share of SNAPGATE_MAX_CONNECTIONS the server is under pressure. */
const PRESSURE = 0.8;

/**
 * What one client can hold of the server. Node checks the headers and request deadlines only
 * every `connectionsCheckingInterval` (30 s by default), so the check runs at least every second
 * and a deadline bites when it is due. Connections over the global or the per-address cap are
 * closed as they arrive, before a byte is read, so a flood of idle sockets cannot exhaust file
 * descriptors or crowd out other clients. Under pressure (past 80 % of the global cap) every new
 * connection makes room by closing the connections that have no request in progress, oldest
 * first: sockets held open without a whole request (or idle between requests) cannot keep a new
 * client out until their header timeout frees them.
 */
export function limitServer(server: Server, limits: ServerLimits): void {
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  // A public property of http.Server that @types/node does not declare; read when listening starts.
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.min(
    1_000,
    Math.ceil(limits.headersTimeoutMs / 2),
  );
  server.maxConnections = limits.maxConnections;

  const pressureAt = Math.max(1, Math.floor(limits.maxConnections * PRESSURE));
  const perAddress = new Map<string, number>();
  /** Open connections this process counts (the ones it closed itself leave at once). */
  let open = 0;
  /**
   * Connections without a request in progress, oldest first (a Map keeps insertion order): new
   * ones, and keep-alive ones between requests. Keyed by the peer's address and port, which a TLS
   * socket shares with the TCP socket under it.
   */
  const waiting = new Map<string, Socket>();
  const keyOf = (s: { remoteAddress?: string | undefined; remotePort?: number | undefined }) =>
    `${s.remoteAddress ?? ''}|${s.remotePort ?? ''}`;
  const evicted = new WeakSet<Socket>();

  function relievePressure(newest: Socket): void {
    for (const [key, socket] of waiting) {
      if (open <= pressureAt || socket === newest) return;
      waiting.delete(key);
      evicted.add(socket);
      open--;
      socket.destroy();
    }
  }

  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const fromAddress = (perAddress.get(address) ?? 0) + 1;
    if (fromAddress > limits.maxConnectionsPerAddress) {
      socket.destroy();
      return;
    }
    perAddress.set(address, fromAddress);
    open++;
    const key = keyOf(socket);
    waiting.set(key, socket);
    socket.once('close', () => {
      if (!evicted.has(socket)) open--;
      if (waiting.get(key) === socket) waiting.delete(key);
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left <= 0) perAddress.delete(address);
      else perAddress.set(address, left);
    });
    if (open > pressureAt) relievePressure(socket);
  });

  // A request in progress is never closed to make room; once answered, its connection waits again
  // (as the newest). This runs on every request, so it keeps its state on the request's socket
  // (looked up by key once per connection) and shares one listener, instead of a key string and a
  // closure per request (measured on a bare Fastify: the earlier form added about 6 µs to its 37
  // per request, this one about 2, inside the machine's drift).
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const on = request.socket as Socket & { [IN_PROGRESS]?: InProgress };
    let entry = on[IN_PROGRESS];
    if (entry === undefined) {
      const key = keyOf(on);
      const socket = waiting.get(key);
      if (!socket) return;
      entry = { key, socket, requests: 0 };
      on[IN_PROGRESS] = entry;
    }
    if (entry.requests++ === 0) waiting.delete(entry.key);
    (response as ServerResponse & { [IN_PROGRESS]?: InProgress })[IN_PROGRESS] = entry;
    response.on('close', answered);
  });

  function answered(this: ServerResponse & { [IN_PROGRESS]?: InProgress }): void {
    const entry = this[IN_PROGRESS];
    if (entry === undefined || --entry.requests > 0) return;
    if (!entry.socket.destroyed && !evicted.has(entry.socket)) waiting.set(entry.key, entry.socket);
  }
}

/** The requests in progress on one connection (pipelined ones counted), kept on its socket. */
interface InProgress {
  key: string;
  /** The socket the connection arrived as (under a TLS socket, the TCP one). */
  socket: Socket;
  requests: number;
}

const IN_PROGRESS = Symbol('snapgate.requestsInProgress');
