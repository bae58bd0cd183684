import { randomUUID } from 'node:crypto';
import { EtcdLeaseInvalidError, type Etcd3, type Lease } from 'etcd3';
import { heartbeatExpired } from '../model/heartbeat-age.ts';
import type { InstanceIndex } from './instance-index.ts';
import type { KeyLayout } from './keys.ts';

/**
 * The leader-side cleanup. etcd deletes a record when its lease expires, but two kinds of
 * records outlive their worker: those whose lease is gone for another reason (written without a
 * lease, restored from a backup), and those whose lease etcd restored with a full TTL after a
 * restart although the worker stopped heartbeating long before (see heartbeat-age.ts). One
 * registry replica — the one holding `sweeperKey` on its own lease — removes both every
 * interval, at most `deleteLimit` per round, each delete conditioned on the record's mod
 * revision; a missing lease is believed only once etcd confirmed it through Raft.
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
    /** Only the candidates come from the index; every delete is decided against etcd. */
    private readonly index: Pick<InstanceIndex, 'all'>,
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
      const now = Date.now();
      const snapshot = [...this.index.all()].map(([key, inst]) => ({
        key,
        lease: inst.leaseId,
        revision: String(inst.revision),
        stale: heartbeatExpired(inst, now),
      }));
      // The lease list only narrows the candidates: etcd serves LeaseLeases from the answering
      // member's own lessor without a ReadIndex, so a member that lags (just resumed, catching
      // up) omits leases granted meanwhile. Every candidate is confirmed through Raft below.
      const leases = await this.client.leaseClient.leaseLeases();
      const listed = new Set(leases.leases.map((l) => BigInt(l.ID).toString(16)));
      let removed = 0;
      for (const s of snapshot) {
        if (removed >= this.deleteLimit) break;
        const key = Buffer.from(s.key);
        if (!s.stale) {
          if (s.lease !== '0' && listed.has(s.lease)) continue;
          if (s.lease !== '0' && (await this.probeLease(key, s.revision, s.lease)) !== 'gone') continue;
        }
        // Conditioned on the revision the decision was made on: a record re-registered or
        // re-stamped meanwhile stays.
        const txn = await this.client.kv.txn({
          compare: [{ key, target: 'Mod', result: 'Equal', mod_revision: s.revision }],
          success: [{ request_delete_range: { key } }],
          failure: [],
        });
        if (!txn.succeeded) continue;
        removed++;
        // Counted at once, not after the round: the watch delete reaches readers of the metric
        // while later candidates of this round are still being probed.
        this.removed++;
        if (s.stale && s.lease !== '0') this.client.leaseClient.leaseRevoke({ ID: BigInt(`0x${s.lease}`).toString() }).catch(() => undefined);
      }
      return removed;
    } finally {
      this.running = false;
    }
  }

  /**
   * A linearizable answer to "does this record's lease still exist?": while the record is still
   * at `revision`, attach a probe key to the lease. etcd checks the lease when it applies the
   * request, so "lease not found" is a committed fact (lease ids are never reused), not one
   * member's possibly stale view.
   */
  private async probeLease(key: Buffer, revision: string, leaseHex: string): Promise<'gone' | 'alive' | 'changed'> {
    const probe = Buffer.from(this.keys.sweeperProbeKey);
    try {
      const txn = await this.client.kv.txn({
        compare: [{ key, target: 'Mod', result: 'Equal', mod_revision: revision }],
        success: [{ request_put: { key: probe, value: Buffer.from(this.me), lease: BigInt(`0x${leaseHex}`).toString() } }],
        failure: [],
      });
      if (!txn.succeeded) return 'changed';
    } catch (err) {
      if (err instanceof EtcdLeaseInvalidError || /requested lease not found/i.test(String(err))) return 'gone';
      throw err;
    }
    // The probe now hangs on a live lease (it would go with it): remove it right away.
    await this.client.kv.deleteRange({ key: probe }).catch(() => undefined);
    return 'alive';
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
