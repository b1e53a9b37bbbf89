import type { FastifyInstance } from 'fastify';
import { openApiPath } from '../../src/http/openapi/route-docs.ts';

/** Every `METHOD path` the Fastify app routes, from its route tree (HEAD, added for every GET, left out). */
export function routesOf(app: FastifyInstance): Set<string> {
  const out = new Set<string>();
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^((?:[│ ] {3})*)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!m) continue;
    const depth = (m[1] as string).length / 4;
    const path = (stack[depth - 1] ?? '') + (m[2] as string);
    stack[depth] = path;
    stack.length = depth + 1;
    for (const method of (m[3] ?? '').split(', ').filter((x) => x && x !== 'HEAD')) {
      out.add(`${method} ${openApiPath(path)}`);
    }
  }
  return out;
}
