import type { Etcd3 } from 'etcd3';
import type { Instance, InstanceKey, InstanceRecord } from '../model/instance.ts';
import { stampDue } from '../model/heartbeat-age.ts';
import { decodeInstance } from './instance-index.ts';
import { neverSent } from './data-client.ts';
import type { KeepAliveChannel } from './keepalive-channel.ts';
import type { KeyLayout } from './keys.ts';
import { PutBatcher, type InstancePut, type PutOutcome, type PutSender } from './put-batcher.ts';

/** Where a write runs: straight on the client, or on the leader's connection (leader-affinity.ts). */
export interface WriteRoute {
  run<T>(call: (client: Etcd3) => Promise<T>): Promise<T>;
}

/** Re-reads allowed when concurrent re-registrations keep moving the instance to new leases. */
const HEARTBEAT_ATTEMPTS = 4;

export type HeartbeatResult =
  | { found: false }
  | { found: true; instance: Instance; remainingTtlSeconds: number; ttlChanged: boolean };

/**
 * The write path. Every instance owns one etcd lease, so expiry is etcd's job: when a lease
 * runs out etcd deletes the record and the watch delivers the delete to every subscriber.
 */
export class InstanceWriter {
  /** The registrations' puts, grouped into txns while earlier ones are in flight (put-batcher.ts). */
  readonly puts: PutBatcher | undefined;
  private readonly sender: PutSender;

  constructor(
    private readonly client: Etcd3,
    private readonly keys: KeyLayout,
    private readonly keepAlive: KeepAliveChannel,
    /** Idempotent reads may be retried on another member; writes never are (see data-client). */
    private readonly reads: Etcd3 = client,
    private readonly writes: WriteRoute = { run: (call) => call(client) },
    opts: { batchPuts?: boolean } = {},
  ) {
    this.sender = etcdPutSender(writes);
    this.puts = opts.batchPuts === false ? undefined : new PutBatcher(this.sender);
  }

  /** Grant a lease, put the record on it; a re-registration moves the record to the new lease. */
  async register(registration: InstanceRecord): Promise<{ revision: number; leaseId: string; record: InstanceRecord }> {
    const rec: InstanceRecord = { ...registration, lastHeartbeatAt: Date.now() };
    const key = Buffer.from(this.keys.instanceKey(rec));
    const grant = await this.writes.run((c) => c.leaseClient.leaseGrant({ TTL: rec.leaseTtlSeconds }));
    const request: InstancePut = { key, value: Buffer.from(JSON.stringify(rec)), lease: grant.ID };
    let put: PutOutcome;
    try {
      put = await (this.puts ? this.puts.put(request) : this.sender.one(request));
    } catch (err) {
      // A put whose answer was lost (deadline, leader change) may still be applied: revoking its
      // lease would then delete an instance nobody deregistered. Only a put that never left is
      // certainly not applied; otherwise the lease is left to expire on its own.
      if (neverSent(err)) this.revokeQuietly(grant.ID);
      throw err;
    }
    const oldLease = put.prevLease;
    if (oldLease && oldLease !== '0' && oldLease !== grant.ID) this.revokeQuietly(oldLease);
    return { revision: put.revision, leaseId: BigInt(grant.ID).toString(16), record: rec };
  }

  /** Delete the record, then revoke its lease. Undefined when there was nothing to delete. */
  async deregister(k: InstanceKey): Promise<{ revision: number; instance: Instance } | undefined> {
    const del = await this.writes.run((c) => c.kv.deleteRange({ key: Buffer.from(this.keys.instanceKey(k)), prev_kv: true }));
    const prev = del.prev_kvs[0];
    if (Number(del.deleted) === 0 || !prev) return undefined;
    if (prev.lease && prev.lease !== '0') this.revokeQuietly(prev.lease);
    const instance = decodeInstance(prev);
    if (!instance) return undefined;
    return { revision: Number(del.header.revision), instance };
  }

  /**
   * Linearizable read of the instance, then a keep-alive on its lease, then the record's
   * heartbeat stamp (the seed's heartbeat commits an update; see heartbeat-age.ts — skipped when
   * the stamp is younger than half a second). A changed TTL cannot be applied to an existing
   * etcd lease, so it moves the record to a fresh lease (that is a real change and produces an
   * upsert); a plain heartbeat emits nothing to watchers.
   *
   * A keep-alive that finds the lease gone does not by itself mean the instance is gone: a
   * re-registration between the read and the keep-alive moves the record to a new lease and
   * revokes the old one while the instance stays registered throughout, and a resumed old
   * leader may not know a lease granted while it was paused. So the instance is read again
   * (linearizably), and only its absence answers not_found.
   */
  async heartbeat(k: InstanceKey, ttlSeconds?: number): Promise<HeartbeatResult> {
    const key = Buffer.from(this.keys.instanceKey(k));
    /** The lease a keep-alive found gone, if any. */
    let goneLease: string | undefined;
    for (let attempt = 0; attempt < HEARTBEAT_ATTEMPTS; attempt++) {
      const res = await this.reads.kv.range({ key });
      const kv = res.kvs[0];
      if (!kv) return { found: false };
      const instance = decodeInstance(kv);
      if (!instance) return { found: false };
      if (kv.lease === goneLease) {
        // etcd answers "lease not found" only once the revocation is applied, and the revocation
        // deletes the record with it. A linearizable read that still shows the record on that
        // lease means the answer came from a member that does not know the lease — an old leader
        // resumed after a pause, before it learns of the new term. Ask again on a fresh stream.
        this.keepAlive.restart(`member gave a stale "lease not found" for lease ${kv.lease}`);
        await new Promise((r) => setTimeout(r, 100 * attempt));
      }
      if (ttlSeconds !== undefined && ttlSeconds !== instance.leaseTtlSeconds) {
        const moved = await this.moveToNewLease(key, kv.mod_revision, kv.lease, instance, ttlSeconds);
        if (moved) return moved;
        continue; // changed or deleted concurrently: read again
      }
      const remaining = await this.keepAlive.once(kv.lease);
      if (remaining > 0) return { found: true, instance: await this.stampIfDue(key, kv.mod_revision, kv.lease, instance), remainingTtlSeconds: remaining, ttlChanged: false };
      goneLease = kv.lease;
    }
    throw new Error(`instance ${k.namespace}/${k.service}/${k.instanceId}: no keep-alive settled in ${HEARTBEAT_ATTEMPTS} attempts (leases changing or members answering stale); retry`);
  }

  /**
   * Writes the heartbeat stamp (unless it is younger than the stamp resolution), on the same
   * lease and only if the record did not change since it was read — a record that changed
   * meanwhile was re-registered, moved or stamped by a concurrent heartbeat, each of which wrote
   * a fresh stamp. Answers judge the TTL by this stamp, so a stamp that etcd did not take fails
   * the heartbeat (the worker retries; the keep-alive it already sent is harmless).
   */
  private async stampIfDue(key: Buffer, modRevision: string, lease: string, instance: Instance): Promise<Instance> {
    const now = Date.now();
    if (!stampDue(instance, now)) return instance;
    const rec: InstanceRecord = { ...stripInstance(instance), lastHeartbeatAt: now };
    const txn = await this.writes.run((c) =>
      c.kv.txn({
        compare: [{ key, target: 'Mod', result: 'Equal', mod_revision: modRevision }],
        success: [{ request_put: { key, value: Buffer.from(JSON.stringify(rec)), lease } }],
        failure: [],
      }),
    );
    return txn.succeeded ? { ...instance, lastHeartbeatAt: now, revision: Number(txn.header.revision) } : instance;
  }

  /** Puts the record on a fresh lease with the new TTL if it is still at `modRevision`. */
  private async moveToNewLease(key: Buffer, modRevision: string, oldLease: string, instance: Instance, ttlSeconds: number): Promise<HeartbeatResult | undefined> {
    const rec: InstanceRecord = { ...stripInstance(instance), leaseTtlSeconds: ttlSeconds, lastHeartbeatAt: Date.now() };
    const grant = await this.writes.run((c) => c.leaseClient.leaseGrant({ TTL: ttlSeconds }));
    const txn = await this.writes.run((c) =>
      c.kv.txn({
        compare: [{ key, target: 'Mod', result: 'Equal', mod_revision: modRevision }],
        success: [{ request_put: { key, value: Buffer.from(JSON.stringify(rec)), lease: grant.ID } }],
        failure: [],
      }),
    );
    if (!txn.succeeded) {
      this.revokeQuietly(grant.ID);
      return undefined;
    }
    this.revokeQuietly(oldLease);
    const revision = Number(txn.header.revision);
    return {
      found: true,
      instance: { ...rec, revision, createRevision: instance.createRevision, leaseId: BigInt(grant.ID).toString(16) },
      remainingTtlSeconds: ttlSeconds,
      ttlChanged: true,
    };
  }

  /** Leases left behind are harmless (they expire), so revocation failures are not surfaced. */
  private revokeQuietly(leaseId: string): void {
    this.writes.run((c) => c.leaseClient.leaseRevoke({ ID: leaseId })).catch(() => undefined);
  }
}

/** Puts on the write route: alone as a put, together as one txn of puts (each with its previous record). */
function etcdPutSender(writes: WriteRoute): PutSender {
  return {
    async one(put) {
      const res = await writes.run((c) => c.kv.put({ key: put.key, value: put.value, lease: put.lease, prev_kv: true }));
      return { revision: Number(res.header.revision), prevLease: res.prev_kv?.lease };
    },
    async many(puts) {
      const res = await writes.run((c) =>
        c.kv.txn({ compare: [], success: puts.map((p) => ({ request_put: { key: p.key, value: p.value, lease: p.lease, prev_kv: true } })), failure: [] }),
      );
      const revision = Number(res.header.revision);
      return res.responses.map((r) => ({ revision, prevLease: r.response_put?.prev_kv?.lease }));
    },
  };
}

/** The stored record of an answered instance (drops the etcd bookkeeping fields). */
export function stripInstance(inst: Instance): InstanceRecord {
  const { revision: _r, createRevision: _c, leaseId: _l, ...rec } = inst;
  return rec;
}
