import { randomUUID } from 'node:crypto';
import type { Etcd3, Lease } from 'etcd3';
import type { InstanceIndex } from './instance-index.ts';
import type { KeyLayout } from './keys.ts';

/**
 * The leader-side cleanup: etcd deletes a record when its lease expires, but a record whose
 * lease is gone for any other reason (written without a lease, restored from a backup) would
 * stay forever. One registry replica — the one holding `sweeperKey` on its own lease — removes
 * such records every interval, at most `deleteLimit` per round.
 */
export class ExpirySweeper {
  private readonly me = randomUUID();
  private lease?: Lease;
  private timer?: NodeJS.Timeout;
  private running = false;
  /** Records removed since start (metrics). */
  removed = 0;

  constructor(
    private readonly client: Etcd3,
    private readonly keys: KeyLayout,
    private readonly index: InstanceIndex,
    private readonly intervalMs: number,
    private readonly deleteLimit: number,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.tick().catch(() => undefined), this.intervalMs);
    this.timer.unref();
  }

  /** One round; returns how many records were removed (0 when another replica holds the sweep). */
  async tick(): Promise<number> {
    if (this.running) return 0;
    this.running = true;
    try {
      if (!(await this.holdSweep())) return 0;
      // Snapshot the index before listing leases: every lease a snapshotted record names was
      // granted before that record was written, so absence from the later list means gone.
      const snapshot = [...this.index.all()].map(([key, inst]) => ({ key, lease: inst.leaseId, revision: inst.revision }));
      const leases = await this.client.leaseClient.leaseLeases();
      const live = new Set(leases.leases.map((l) => BigInt(l.ID).toString(16)));
      let removed = 0;
      for (const s of snapshot) {
        if (removed >= this.deleteLimit) break;
        if (s.lease !== '0' && live.has(s.lease)) continue;
        const key = Buffer.from(s.key);
        const txn = await this.client.kv.txn({
          compare: [{ key, target: 'Mod', result: 'Equal', mod_revision: String(s.revision) }],
          success: [{ request_delete_range: { key } }],
          failure: [],
        });
        if (txn.succeeded) removed++;
      }
      this.removed += removed;
      return removed;
    } finally {
      this.running = false;
    }
  }

  private async holdSweep(): Promise<boolean> {
    if (!this.lease || this.lease.revoked()) {
      const ttl = Math.max(5, Math.ceil((3 * this.intervalMs) / 1000));
      this.lease = this.client.lease(ttl);
      this.lease.on('lost', () => {
        this.lease = undefined;
      });
    }
    const leaseId = await this.lease.grant();
    const key = Buffer.from(this.keys.sweeperKey);
    const txn = await this.client.kv.txn({
      compare: [{ key, target: 'Create', result: 'Equal', create_revision: '0' }],
      success: [{ request_put: { key, value: Buffer.from(this.me), lease: leaseId } }],
      failure: [{ request_range: { key } }],
    });
    if (txn.succeeded) return true;
    const holder = txn.responses[0]?.response_range?.kvs[0]?.value.toString('utf8');
    return holder === this.me;
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    const lease = this.lease;
    this.lease = undefined;
    await lease?.revoke().catch(() => undefined);
  }
}
