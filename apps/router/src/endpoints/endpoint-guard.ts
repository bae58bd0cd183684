/**
 * Which registry endpoints the router may send function traffic to. The registry only lets a
 * revision's own workers register under its name, but the address they register is theirs to
 * choose: without this guard a function could point its traffic — clients' cookies and
 * Authorization headers included — at a platform component (statesvc, the registry, the
 * operator, etcd, Redis) or back at the router, and the router would proxy the public to it.
 *
 * An endpoint is dropped when:
 * - its host is not an IP address (or `localhost`): a name may resolve anywhere, later;
 * - it is a platform component's address (`--platform-endpoint HOST[:PORT]`, plus the URLs the
 *   router was given: registry, store, autoscaler, executor, Redis). Names in that list are
 *   resolved (and re-resolved) to their addresses, so a Kubernetes Service name covers its
 *   ClusterIP; an entry without a port covers every port of that host;
 * - it is one of the router's own listeners (public or admin port on an address of this
 *   machine), which on Kubernetes also covers the router's own pod IP.
 * Addresses of "this machine" (loopback, unspecified, this host's interface addresses) are one
 * host: `127.0.0.2:P` or the host's LAN address reach a process listening on `0.0.0.0:P` too.
 *
 * Limits (docs/security.md): the router cannot know the pod IPs behind a platform Service, nor
 * every address of another machine; there the chart's NetworkPolicies (statesvc and etcd refuse
 * connections from routers) carry the weight.
 */
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

export interface HostPort {
  host: string;
  port?: number;
}

export type GuardVerdict = { ok: true } | { ok: false; reason: string };

/** Lowercase, no brackets or trailing dot, IPv4-mapped IPv6 as IPv4. */
export function normalizeHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h.endsWith('.')) h = h.slice(0, -1);
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(h);
  return mapped ? mapped[1]! : h;
}

/** `host:port`, `[v6]:port`, a bare host or IPv6 address, or a URL (`http://host:port/…`). */
export function parseHostPort(spec: string): HostPort | undefined {
  const s = spec.trim();
  if (s === '') return undefined;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) {
    try {
      const u = new URL(s);
      const defaults: Record<string, number> = { 'http:': 80, 'https:': 443, 'redis:': 6379, 'rediss:': 6379 };
      const port = u.port ? Number(u.port) : defaults[u.protocol];
      return { host: normalizeHost(u.hostname), ...(port ? { port } : {}) };
    } catch {
      return undefined;
    }
  }
  if (isIP(normalizeHost(s)) === 6) return { host: normalizeHost(s) };
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d{1,5}))?$/.exec(s);
  if (!m) return undefined;
  const port = m[2] === undefined ? undefined : Number(m[2]);
  if (port !== undefined && (port < 1 || port > 65535)) return undefined;
  return { host: normalizeHost(m[1]!), ...(port !== undefined ? { port } : {}) };
}

const isLoopback = (h: string): boolean => h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
const isUnspecified = (h: string): boolean => h === '0.0.0.0' || h === '::';

export function localInterfaceAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .map((a) => normalizeHost(a.address.split('%')[0]!));
}

export interface EndpointGuardOptions {
  /** Platform components: `HOST[:PORT]` or URLs. */
  platform: readonly string[];
  /** The router's own listening ports (public, admin); more can be added once they are bound. */
  selfPorts?: readonly number[];
  /** This machine's addresses (default: every interface's). */
  localAddresses?: () => readonly string[];
}

export class EndpointGuard {
  private readonly denied: HostPort[] = [];
  /** Addresses each denied name resolved to (refreshed). */
  private readonly resolved = new Map<string, readonly string[]>();
  private readonly selfPorts = new Set<number>();
  private readonly local: Set<string>;

  constructor(o: EndpointGuardOptions) {
    for (const spec of o.platform) {
      const hp = parseHostPort(spec);
      if (!hp) throw new Error(`platform endpoint "${spec}" must be HOST, HOST:PORT, [IPv6]:PORT or a URL`);
      this.denied.push(hp);
    }
    for (const p of o.selfPorts ?? []) if (p > 0) this.selfPorts.add(p);
    this.local = new Set((o.localAddresses ?? localInterfaceAddresses)().map(normalizeHost));
  }

  /** The platform entries, for a start-up log line. */
  get entries(): string[] {
    return this.denied.map((d) => (d.port ? `${d.host}:${d.port}` : d.host));
  }

  /** Host names among the entries (those worth resolving). */
  names(): string[] {
    return [...new Set(this.denied.map((d) => d.host).filter((h) => isIP(h) === 0 && h !== 'localhost'))];
  }

  setResolved(name: string, addresses: readonly string[]): void {
    this.resolved.set(normalizeHost(name), addresses.map(normalizeHost));
  }

  /** Resolves every name among the entries (a failed lookup keeps what was known). */
  async resolveNames(lookup: (name: string) => Promise<string[]>): Promise<void> {
    await Promise.all(
      this.names().map(async (name) => {
        try {
          this.setResolved(name, await lookup(name));
        } catch {
          /* keep the last answer; the name itself still matches */
        }
      }),
    );
  }

  addSelfPorts(ports: readonly number[]): void {
    for (const p of ports) if (p > 0) this.selfPorts.add(p);
  }

  /** True for an address of this machine (loopback, unspecified, a local interface). */
  isThisMachine(host: string): boolean {
    const h = normalizeHost(host);
    return isLoopback(h) || isUnspecified(h) || this.local.has(h);
  }

  private sameHost(endpointHost: string, denied: string): boolean {
    if (endpointHost === denied) return true;
    if (this.isThisMachine(endpointHost) && this.isThisMachine(denied)) return true;
    const addrs = this.resolved.get(denied);
    return !!addrs && addrs.some((a) => a === endpointHost || (this.isThisMachine(a) && this.isThisMachine(endpointHost)));
  }

  check(address: string): GuardVerdict {
    const hp = parseHostPort(address);
    if (!hp || hp.port === undefined) return { ok: false, reason: `"${address}" is not HOST:PORT` };
    if (isIP(hp.host) === 0 && hp.host !== 'localhost') return { ok: false, reason: `"${address}" names a host instead of an IP address` };
    if (this.isThisMachine(hp.host) && this.selfPorts.has(hp.port)) return { ok: false, reason: `"${address}" is this router's own listener` };
    for (const d of this.denied) {
      if ((d.port === undefined || d.port === hp.port) && this.sameHost(hp.host, d.host)) {
        return { ok: false, reason: `"${address}" is a platform component's address (${d.port ? `${d.host}:${d.port}` : d.host})` };
      }
    }
    return { ok: true };
  }
}
