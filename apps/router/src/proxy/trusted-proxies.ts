/**
 * `--trusted-proxies CIDR,…`: the peers whose forwarding headers (X-Forwarded-For, -Proto,
 * -Host, Forwarded) the router keeps and appends to, instead of overwriting them
 * (forwarded-headers.ts). Pure: addresses in, booleans out.
 *
 * Addresses are compared as 16 bytes: IPv4 as its IPv4-mapped IPv6 form, so `10.0.0.0/8` also
 * matches a peer the kernel reports as `::ffff:10.1.2.3` (a dual-stack listener).
 */

const HEX = /^[0-9a-fA-F]{1,4}$/;

function parseIpv4(text: string, out: Uint8Array, at: number): boolean {
  const parts = text.split('.');
  if (parts.length !== 4) return false;
  for (let i = 0; i < 4; i++) {
    const p = parts[i]!;
    // Decimal only, no leading zeros (some parsers read them as octal: refuse the ambiguity).
    if (!/^(0|[1-9]\d{0,2})$/.test(p)) return false;
    const n = Number(p);
    if (n > 255) return false;
    out[at + i] = n;
  }
  return true;
}

/**
 * An IP address as 16 bytes (IPv4 → `::ffff:a.b.c.d`), or undefined when `text` is not one.
 * Accepts a zone (`fe80::1%eth0`, ignored); no brackets, no port.
 */
export function parseIp(text: string): Uint8Array | undefined {
  const out = new Uint8Array(16);
  if (text.indexOf(':') < 0) {
    if (!parseIpv4(text, out, 12)) return undefined;
    out[10] = 0xff;
    out[11] = 0xff;
    return out;
  }
  const zone = text.indexOf('%');
  const addr = zone >= 0 ? text.slice(0, zone) : text;
  if (zone === 0 || addr.length < 2) return undefined;
  const halves = addr.split('::');
  if (halves.length > 2) return undefined;
  const groups = (s: string): string[] => (s === '' ? [] : s.split(':'));
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  // An embedded IPv4 (::ffff:1.2.3.4) takes the last two groups.
  const words: number[] = [];
  const last = (halves.length === 2 ? tail : head).at(-1);
  let v4: Uint8Array | undefined;
  if (last !== undefined && last.includes('.')) {
    v4 = new Uint8Array(16);
    if (!parseIpv4(last, v4, 12)) return undefined;
    (halves.length === 2 ? tail : head).pop();
  }
  const v4Words = v4 ? 2 : 0;
  for (const g of [...head, ...tail]) if (!HEX.test(g)) return undefined;
  const explicit = head.length + tail.length + v4Words;
  if (halves.length === 2 ? explicit > 7 : explicit !== 8) return undefined;
  for (const g of head) words.push(parseInt(g, 16));
  if (halves.length === 2) for (let i = explicit; i < 8; i++) words.push(0);
  for (const g of tail) words.push(parseInt(g, 16));
  for (let i = 0; i < words.length; i++) {
    out[2 * i] = words[i]! >> 8;
    out[2 * i + 1] = words[i]! & 0xff;
  }
  if (v4) out.set(v4.subarray(12), 12);
  return out;
}

interface Block {
  bytes: Uint8Array;
  bits: number;
}

function inBlock(addr: Uint8Array, b: Block): boolean {
  const full = b.bits >> 3;
  for (let i = 0; i < full; i++) if (addr[i] !== b.bytes[i]) return false;
  const rest = b.bits & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (addr[full]! & mask) === (b.bytes[full]! & mask);
}

const CACHE_LIMIT = 4096;

export class TrustedProxies {
  /** Each entry as given, normalised to `address/bits`. */
  readonly entries: string[] = [];
  private readonly blocks: Block[] = [];
  /** Peers repeat (one per connection, few proxies): the answer is cached. */
  private readonly cache = new Map<string, boolean>();

  /**
   * `10.0.0.0/8,192.168.1.5,fd00::/8` (a bare address is a /32 or /128). Throws an Error naming
   * the first entry that is not an address or CIDR block; an empty list is an error too.
   */
  static parse(list: string): TrustedProxies {
    const t = new TrustedProxies();
    const items = list.split(',').map((s) => s.trim()).filter(Boolean);
    if (items.length === 0) throw new Error('--trusted-proxies needs at least one address or CIDR block, e.g. 10.0.0.0/8');
    for (const item of items) {
      const slash = item.indexOf('/');
      const addrText = slash < 0 ? item : item.slice(0, slash);
      const bytes = parseIp(addrText);
      const v4 = addrText.indexOf(':') < 0;
      const max = v4 ? 32 : 128;
      const bitsText = slash < 0 ? String(max) : item.slice(slash + 1);
      if (!bytes || !/^\d{1,3}$/.test(bitsText) || Number(bitsText) > max) {
        throw new Error(`--trusted-proxies: ${JSON.stringify(item)} is not an IP address or CIDR block (e.g. 10.0.0.0/8, 192.168.1.5, fd00::/8)`);
      }
      const bits = Number(bitsText) + (v4 ? 96 : 0);
      t.blocks.push({ bytes, bits });
      t.entries.push(`${addrText}/${bitsText}`);
    }
    return t;
  }

  /** True when `address` (as a socket reports it, or an X-Forwarded-For element) is inside a trusted block. */
  contains(address: string): boolean {
    const hit = this.cache.get(address);
    if (hit !== undefined) return hit;
    const bytes = parseIp(address);
    let yes = false;
    if (bytes) for (const b of this.blocks) if (inBlock(bytes, b)) yes = true;
    if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
    this.cache.set(address, yes);
    return yes;
  }
}
