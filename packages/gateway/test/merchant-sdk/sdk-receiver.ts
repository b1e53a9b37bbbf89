import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type CallbackHandlerOptions,
  type CallbackResult,
  createCallbackHandler,
  type StatusEvent,
} from '@snapgate/merchant-sdk';

/** A merchant receiver built on the SDK's callback handler: a real node:http server on 127.0.0.1. */
export async function startSdkReceiver(
  options: Omit<CallbackHandlerOptions, 'onStatus'> & { onStatus?: CallbackHandlerOptions['onStatus'] },
) {
  const events: StatusEvent[] = [];
  const results: CallbackResult[] = [];
  const handler = createCallbackHandler({
    ...options,
    onStatus: async (e) => {
      await options.onStatus?.(e);
      events.push(e);
    },
    onOutcome: (r) => results.push(r),
  } as CallbackHandlerOptions);
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    events,
    results,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type SdkReceiver = Awaited<ReturnType<typeof startSdkReceiver>>;
