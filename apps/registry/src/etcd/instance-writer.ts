import type { Etcd3 } from 'etcd3';
import type { Instance, InstanceKey, InstanceRecord } from '../model/instance.ts';
import { decodeInstance } from './instance-index.ts';
import type { KeepAliveChannel } from './keepalive-channel.ts';
import type { KeyLayout } from './keys.ts';

export type HeartbeatResult =
  | { found: false }
  | { found: true; instance: Instance; remainingTtlSeconds: number; ttlChanged: boolean };

/**
 * The write path. Every instance owns one etcd lease, so expiry is etcd's job: when a lease
 * runs out etcd deletes the record and the watch delivers the delete to every subscriber.
 */
export class InstanceWriter {
  constructor(
    private readonly client: Etcd3,
    private readonly keys: KeyLayout,
    private readonly keepAlive: KeepAliveChannel,
    /** Idempotent reads may be retried on another member; writes never are (see data-client). */
    private readonly reads: Etcd3 = client,
  ) {}

  /** Grant a lease, put the record on it; a re-registration moves the record to the new lease. */
  async register(rec: InstanceRecord): Promise<{ revision: number; leaseId: string }> {
    const key = Buffer.from(this.keys.instanceKey(rec));
    const grant = await this.client.leaseClient.leaseGrant({ TTL: rec.leaseTtlSeconds });
    let put;
    try {
      put = await this.client.kv.put({ key, value: Buffer.from(JSON.stringify(rec)), lease: grant.ID, prev_kv: true });
    } catch (err) {
      this.revokeQuietly(grant.ID);
      throw err;
    }
    const oldLease = put.prev_kv?.lease;
    if (oldLease && oldLease !== '0' && oldLease !== grant.ID) this.revokeQuietly(oldLease);
    return { revision: Number(put.header.revision), leaseId: BigInt(grant.ID).toString(16) };
  }

  /** Delete the record, then revoke its lease. Undefined when there was nothing to delete. */
  async deregister(k: InstanceKey): Promise<{ revision: number; instance: Instance } | undefined> {
    const del = await this.client.kv.deleteRange({ key: Buffer.from(this.keys.instanceKey(k)), prev_kv: true });
    const prev = del.prev_kvs[0];
    if (Number(del.deleted) === 0 || !prev) return undefined;
    if (prev.lease && prev.lease !== '0') this.revokeQuietly(prev.lease);
    const instance = decodeInstance(prev);
    if (!instance) return undefined;
    return { revision: Number(del.header.revision), instance };
  }

  /**
   * Linearizable read of the instance, then a keep-alive on its lease. A changed TTL cannot be
   * applied to an existing etcd lease, so it moves the record to a fresh lease (that is a real
   * change and produces an upsert); a plain heartbeat writes nothing and emits nothing.
   */
  async heartbeat(k: InstanceKey, ttlSeconds?: number): Promise<HeartbeatResult> {
    const key = Buffer.from(this.keys.instanceKey(k));
    const res = await this.reads.kv.range({ key });
    const kv = res.kvs[0];
    if (!kv) return { found: false };
    const instance = decodeInstance(kv);
    if (!instance) return { found: false };
    if (ttlSeconds !== undefined && ttlSeconds !== instance.leaseTtlSeconds) {
      const rec: InstanceRecord = stripInstance(instance);
      rec.leaseTtlSeconds = ttlSeconds;
      const grant = await this.client.leaseClient.leaseGrant({ TTL: ttlSeconds });
      const txn = await this.client.kv.txn({
        compare: [{ key, target: 'Mod', result: 'Equal', mod_revision: kv.mod_revision }],
        success: [{ request_put: { key, value: Buffer.from(JSON.stringify(rec)), lease: grant.ID } }],
        failure: [],
      });
      if (!txn.succeeded) {
        // Changed or deleted concurrently: let the client decide (retry the heartbeat or re-register).
        this.revokeQuietly(grant.ID);
        return this.heartbeat(k);
      }
      this.revokeQuietly(kv.lease);
      const revision = Number(txn.header.revision);
      return {
        found: true,
        instance: { ...rec, revision, createRevision: instance.createRevision, leaseId: BigInt(grant.ID).toString(16) },
        remainingTtlSeconds: ttlSeconds,
        ttlChanged: true,
      };
    }
    const remaining = await this.keepAlive.once(kv.lease);
    if (remaining <= 0) return { found: false };
    return { found: true, instance, remainingTtlSeconds: remaining, ttlChanged: false };
  }

  /** Leases left behind are harmless (they expire), so revocation failures are not surfaced. */
  private revokeQuietly(leaseId: string): void {
    this.client.leaseClient.leaseRevoke({ ID: leaseId }).catch(() => undefined);
  }
}

/** The stored record of an answered instance (drops the etcd bookkeeping fields). */
export function stripInstance(inst: Instance): InstanceRecord {
  const { revision: _r, createRevision: _c, leaseId: _l, ...rec } = inst;
  return rec;
}
