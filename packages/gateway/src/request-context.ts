import { AsyncLocalStorage } from 'node:async_hooks';

// The request a piece of work is done for, without passing it through every call: the status
// change that writes a notification records the X-Request-Id of the request that caused it.
const context = new AsyncLocalStorage<{ requestId: string }>();

/** Marks the rest of this asynchronous execution (a request's handling) as done for `requestId`. */
export function enterRequest(requestId: string): void {
  context.enterWith({ requestId });
}

/** The X-Request-Id of the request being handled, if any (a timer's work has none). */
export function currentRequestId(): string | undefined {
  return context.getStore()?.requestId;
}
