import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { ServerLimits } from '../config.ts';

/**
 * What one client can hold of the server. Node checks the headers and request deadlines only
 * every `connectionsCheckingInterval` (30 s by default), so the check runs at least every second
 * and a deadline bites when it is due. Connections over the global or the per-address cap are
 * closed as they arrive, before a byte is read, so a flood of idle sockets cannot exhaust file
 * descriptors or crowd out other clients.
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

  const perAddress = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const open = (perAddress.get(address) ?? 0) + 1;
    if (open > limits.maxConnectionsPerAddress) {
      socket.destroy();
      return;
    }
    perAddress.set(address, open);
    socket.once('close', () => {
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left <= 0) perAddress.delete(address);
      else perAddress.set(address, left);
    });
  });
}
