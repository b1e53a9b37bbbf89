// Where the SNAP API is served (docs/clients.md): always under /api/snap/v1.0, and under the
// prefixes other SNAP servers use, so a client written for one of them works with its base URL
// pointed here; a compatibility profile adds the exact routes one client family calls. The
// signature is always checked over the path the client requested, so every mount signs as itself.

/** The prefix every snapgate serves, whatever is configured. */
export const CANONICAL_SNAP_PREFIX = '/api/snap/v1.0';

/**
 * SNAPGATE_SNAP_PREFIXES's default: the prefixes of the common SNAP servers and their clients
 * (`/api/v1.0`: PHP SNAP-BI client libraries, docs/clients.md).
 */
export const DEFAULT_SNAP_PREFIXES = '/v1.0,/snap/v1.0,/openapi/v1.0,/snap-adapter/b2b/v1.0,/api/v1.0';

/** The client families a profile exists for. */
export const SNAP_PROFILES = ['midtrans', 'doku'] as const;
export type SnapProfile = (typeof SNAP_PROFILES)[number];

/** SNAPGATE_SNAP_PROFILES's default: every profile (each only adds routes; none changes one). */
export const DEFAULT_SNAP_PROFILES = SNAP_PROFILES.join(',');

export interface SnapMounts {
  /** Besides the canonical one, in the order configured. */
  prefixes: string[];
  profiles: SnapProfile[];
}

export const CANONICAL_MOUNTS: SnapMounts = { prefixes: [], profiles: [] };

type Method = 'POST' | 'PUT' | 'DELETE';

/** A SNAP route: its method and its path after the prefix (`qr/qr-mpm-generate`), by operation name. */
export interface SnapRoute {
  name: string;
  method: Method;
  path: string;
}

/**
 * What a profile adds: another method for the operation's own path under every prefix (`path`, as
 * the docs show it), or an exact path of that client's own (`url`).
 */
type Alias = { operation: string; method: Method } & ({ url: string } | { path: string });

const PROFILE_ALIASES: Record<SnapProfile, Alias[]> = {
  // Midtrans' SnapBi (midtrans-client) POSTs everything, delete-va included.
  midtrans: [{ operation: 'delete-va', method: 'POST', path: 'transfer-va/delete-va' }],
  // DOKU's library (doku-nodejs-library) calls DOKU's own paths and signs them as requested.
  doku: [
    { operation: 'access-token-b2b', method: 'POST', url: '/authorization/v1/access-token/b2b' },
    { operation: 'create-va', method: 'POST', url: '/virtual-accounts/bi-snap-va/v1.1/transfer-va/create-va' },
    { operation: 'update-va', method: 'PUT', url: '/virtual-accounts/bi-snap-va/v1.1/transfer-va/update-va' },
    { operation: 'delete-va', method: 'DELETE', url: '/virtual-accounts/bi-snap-va/v1.1/transfer-va/delete-va' },
    { operation: 'va-status', method: 'POST', url: '/orders/v1.0/transfer-va/status' },
  ],
};

/** Every method and URL a route is served at under these mounts (the canonical one first). */
export function mountsOf(mounts: SnapMounts, route: SnapRoute): Array<{ method: Method; url: string }> {
  const prefixes = [CANONICAL_SNAP_PREFIX, ...mounts.prefixes];
  const out = prefixes.map((p) => ({ method: route.method, url: `${p}/${route.path}` }));
  for (const profile of mounts.profiles) {
    for (const alias of PROFILE_ALIASES[profile].filter((a) => a.operation === route.name)) {
      const urls = 'url' in alias ? [alias.url] : prefixes.map((p) => `${p}/${route.path}`);
      for (const url of urls) {
        if (!out.some((o) => o.method === alias.method && o.url === url)) out.push({ method: alias.method, url });
      }
    }
  }
  return out;
}

/** Each profile's routes as the docs list them: `METHOD url → operation`. */
export function profileRoutes(profile: SnapProfile): Array<{ method: Method; url: string; operation: string }> {
  return PROFILE_ALIASES[profile].map((a) => ({
    method: a.method,
    url: 'url' in a ? a.url : `<prefix>/${a.path}`,
    operation: a.operation,
  }));
}

/** Paths of the gateway's own that no prefix may take. */
const RESERVED = [
  '/admin',
  '/console',
  '/portal',
  '/pay',
  '/upstream',
  '/qr',
  '/.well-known',
  '/healthz',
  '/readyz',
  '/metrics',
  '/docs',
];
const PREFIX = /^(\/[A-Za-z0-9._~-]+)+$/;

/** SNAPGATE_SNAP_PREFIXES: a comma-separated list of path prefixes, or `none`. Throws with the reason. */
export function parseSnapPrefixes(text: string): string[] {
  const t = text.trim();
  if (t === 'none') return [];
  const out: string[] = [];
  for (const raw of t.split(',')) {
    const p = raw.trim().replace(/\/+$/, '');
    if (!PREFIX.test(p) || p.split('/').some((s) => s === '.' || s === '..')) {
      throw new TypeError(`${JSON.stringify(raw.trim())} is not a path prefix like /v1.0 (letters, digits, . _ ~ -)`);
    }
    if (RESERVED.some((r) => p === r || p.startsWith(`${r}/`))) {
      throw new TypeError(`${p} is the gateway's own path`);
    }
    if (p !== CANONICAL_SNAP_PREFIX && !out.includes(p)) out.push(p);
  }
  return out;
}

/** SNAPGATE_SNAP_PROFILES: a comma-separated list of profiles, or `none`. Throws with the reason. */
export function parseSnapProfiles(text: string): SnapProfile[] {
  const t = text.trim();
  if (t === 'none') return [];
  const out: SnapProfile[] = [];
  for (const raw of t.split(',')) {
    const p = raw.trim();
    if (!(SNAP_PROFILES as readonly string[]).includes(p)) {
      throw new TypeError(`${JSON.stringify(p)} is not a profile (${SNAP_PROFILES.join(', ')}, or none)`);
    }
    if (!out.includes(p as SnapProfile)) out.push(p as SnapProfile);
  }
  return out;
}
