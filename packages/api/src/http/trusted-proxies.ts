import { isIPv4, isIPv6 } from 'node:net';

/**
 * Which peers may speak for the client in `X-Forwarded-*` headers (a TLS ingress, the console in
 * front of the admin API). Nobody by default: a forwarded header from any other peer is ignored,
 * so a client cannot claim https or another address. Entries are addresses, CIDR ranges
 * (`10.0.0.0/8`, `fd00::/8`) or `loopback` (127.0.0.0/8 and ::1).
 */
export interface TrustedProxies {
  has(address: string | undefined): boolean;
  /** The entries as given, for logs. */
  readonly entries: readonly string[];
}

interface Range {
  v6: boolean;
  base: bigint;
  bits: number;
}

/** `::ffff:1.2.3.4` → `1.2.3.4`; zone ids dropped; anything else unchanged. */
export function normalizeAddress(address: string): string {
  const a = address.trim().replace(/%.*$/, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a);
  return mapped ? mapped[1]! : a;
}

function v4ToBig(a: string): bigint {
  return a.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function v6ToBig(a: string): bigint {
  let s = a.toLowerCase();
  // A trailing dotted quad (::ffff:1.2.3.4 forms that were not normalized) becomes two groups.
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (quad) {
    const n = v4ToBig(quad[1]!);
    s = `${s.slice(0, -quad[1]!.length)}${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head = '', tail] = s.split('::');
  const h = head ? head.split(':') : [];
  const t = tail === undefined ? [] : tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g || '0', 16)), 0n);
}

/** The address as a number and its family, or undefined when it is not an IP address. */
export function parseAddress(address: string): { v6: boolean; value: bigint } | undefined {
  const a = normalizeAddress(address);
  if (isIPv4(a)) return { v6: false, value: v4ToBig(a) };
  if (isIPv6(a)) return { v6: true, value: v6ToBig(a) };
  return undefined;
}

function parseEntry(entry: string): Range[] {
  if (entry === 'loopback') return [...parseEntry('127.0.0.0/8'), ...parseEntry('::1')];
  const [addr = '', prefix, extra] = entry.split('/');
  const parsed = parseAddress(addr);
  const max = parsed?.v6 ? 128 : 32;
  const bits = prefix === undefined ? max : Number(prefix);
  if (!parsed || extra !== undefined || (prefix !== undefined && !/^\d+$/.test(prefix)) || !Number.isInteger(bits) || bits < 0 || bits > max) {
    throw new Error(`trusted proxy "${entry}" is not an address, a CIDR range (10.0.0.0/8, fd00::/8) or "loopback"`);
  }
  const shift = BigInt(max - bits);
  return [{ v6: parsed.v6, base: (parsed.value >> shift) << shift, bits }];
}

/** Parses a comma-separated list (flag or environment) or a list of entries; throws on a bad entry. */
export function parseTrustedProxies(spec: string | readonly string[] | undefined): TrustedProxies {
  const entries = (typeof spec === 'string' ? spec.split(',') : [...(spec ?? [])]).map((e) => e.trim()).filter(Boolean);
  const ranges = entries.flatMap(parseEntry);
  return {
    entries,
    has(address) {
      if (!address || ranges.length === 0) return false;
      const a = parseAddress(address);
      if (!a) return false;
      return ranges.some((r) => {
        if (r.v6 !== a.v6) return false;
        const shift = BigInt((r.v6 ? 128 : 32) - r.bits);
        return (a.value >> shift) << shift === r.base;
      });
    },
  };
}
