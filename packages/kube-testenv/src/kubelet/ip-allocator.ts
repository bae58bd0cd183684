/**
 * Pod addresses from the node's /24, handed out round-robin from .2 (the next free one after the
 * last given, as host-local IPAM does) so an address is not reused at once while kube-proxy and
 * conntrack may still point at its previous pod. Nothing is persisted: a restarted kubelet starts
 * with every pod namespace removed.
 */
export class IpAllocator {
  private readonly used = new Set<number>();
  private last: number;

  /** `prefix` like `10.244.1.`; hosts `first`..`last` (the host side has none in this range). */
  constructor(
    private readonly prefix: string,
    private readonly first = 2,
    private readonly lastHost = 254,
  ) {
    this.last = lastHost;
  }

  allocate(): string {
    const span = this.lastHost - this.first + 1;
    for (let i = 1; i <= span; i++) {
      const n = this.first + ((this.last - this.first + i) % span);
      if (!this.used.has(n)) {
        this.used.add(n);
        this.last = n;
        return `${this.prefix}${n}`;
      }
    }
    throw new Error(`no free pod address left in ${this.prefix}0/24`);
  }

  release(ip: string): void {
    if (!ip.startsWith(this.prefix)) return;
    this.used.delete(Number(ip.slice(this.prefix.length)));
  }

  get inUse(): number {
    return this.used.size;
  }
}
