import type {
  FastifyContextConfig,
  FastifyInstance,
  onRequestHookHandler,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
  RouteHandlerMethod,
} from 'fastify';
import type { HttpMethod, Operation, PathItem } from './kit.ts';

// A route and its OpenAPI operation, declared once: `documentedRoute` registers the route with
// Fastify and keeps its operation for its API's document (admin-document.ts), under the path the
// route is served at (its plugin's prefix and its url, `:id` written `{id}`). The document is
// assembled once every route is registered (routes/openapi.ts, at the first request for it).

/** The operations of one API's document, gathered as its routes are registered. */
export class RouteDocs {
  readonly #paths = new Map<string, PathItem>();

  add(path: string, method: HttpMethod, operation: Operation): void {
    const item = this.#paths.get(path) ?? {};
    if (item[method]) throw new TypeError(`${method.toUpperCase()} ${path} is documented twice`);
    item[method] = operation;
    this.#paths.set(path, item);
  }

  /** Every path item gathered so far, by path. */
  paths(): Record<string, PathItem> {
    return Object.fromEntries(this.#paths);
  }
}

/** A Fastify url as an OpenAPI path: `/merchants/:id` → `/merchants/{id}`. */
export const openApiPath = (url: string): string => url.replace(/:(\w+)/g, '{$1}');

/** One route: what Fastify runs, and what its API's document says of it. */
export interface DocumentedRoute<Route extends RouteGenericInterface = RouteGenericInterface> {
  method: HttpMethod;
  /** Under the plugin's prefix, Fastify's form: `/merchants/:id`. */
  url: string;
  config: FastifyContextConfig;
  /** The largest body the route reads, when not the server's default. */
  bodyLimit?: number;
  /** A hook of its own before anything else (the metrics' admin key in production). */
  onRequest?: onRequestHookHandler;
  operation: Operation;
  handler: RouteHandlerMethod<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, Route>;
}

/** Registers the route on `app` and documents it in `docs`. */
export function documentedRoute<Route extends RouteGenericInterface = RouteGenericInterface>(
  app: FastifyInstance,
  docs: RouteDocs,
  route: DocumentedRoute<Route>,
): void {
  app.route<Route>({
    method: route.method.toUpperCase(),
    url: route.url,
    config: route.config,
    ...(route.bodyLimit === undefined ? {} : { bodyLimit: route.bodyLimit }),
    ...(route.onRequest === undefined ? {} : { onRequest: route.onRequest }),
    handler: route.handler,
  });
  docs.add(openApiPath(`${app.prefix}${route.url}`), route.method, route.operation);
}
