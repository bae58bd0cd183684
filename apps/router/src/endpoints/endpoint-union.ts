/**
 * The endpoints the data plane admits to: the union of the endpoints file and the registry, each
 * reporting its complete set, plus the addresses the operator answered on a cold start (kept until
 * a listing names them, at most 30 s). Registry endpoints pass the guard first: never a platform
 * component's address or the router's own. Every change replaces the endpoint index; what changed
 * lifts quarantines, closes connection pools and drains activator queues.
 */
import type { MessageLog } from '@orrery/log';
import type { EndpointIndex, EndpointRecord } from '../admit/endpoint-index.ts';
import type { RevisionQueues } from '../activator/revision-queues.ts';
import type { UpstreamPools } from '../proxy/upstream-pools.ts';
import { namespacedKey } from '../routing/namespaced-key.ts';
import type { QuarantineTable } from '../shared-tables.ts';
import type { EndpointGuard } from './endpoint-guard.ts';

/** How long an answered address counts without a listing naming it. */
const ANSWERED_TTL_MS = 30_000;
/** Refused endpoints are logged once each, up to this many (a misbehaving registry cannot flood the log). */
const MAX_REFUSALS_LOGGED = 10_000;

export interface EndpointUnionOptions {
  index: EndpointIndex;
  quarantine: QuarantineTable;
  pools: UpstreamPools;
  queues: RevisionQueues;
  guard: EndpointGuard;
  log: MessageLog;
}

export class EndpointUnion {
  private fileRecords: EndpointRecord[] = [];
  /** What the registry reported, and the part of it the guard lets through. */
  private registryAll: EndpointRecord[] = [];
  private registryRecords: EndpointRecord[] = [];
  private answered: Array<EndpointRecord & { at: number }> = [];
  private readonly refused = new Set<string>();

  constructor(private readonly o: EndpointUnionOptions) {}

  /** The endpoints file's complete set. */
  readonly setFile = (records: EndpointRecord[]): void => {
    this.fileRecords = records;
    this.apply();
  };

  /** The registry's complete set. */
  readonly setRegistry = (records: EndpointRecord[]): void => {
    this.registryAll = records;
    this.guardRegistry();
    this.apply();
  };

  /** An address the operator answered (specialize, or a poke that waited for the first worker). */
  readonly admitAnswered = (r: EndpointRecord): void => {
    if (this.answered.some((e) => e.address === r.address && e.revision === r.revision)) return;
    this.answered.push({ ...r, at: Date.now() });
    this.apply();
  };

  /** A registry instance the watch could not use: logged once. */
  readonly ignoredInstance = (instance: string, reason: string): void => {
    if (this.refused.has(instance) || this.refused.size >= MAX_REFUSALS_LOGGED) return;
    this.refused.add(instance);
    this.o.log(`registry instance ${instance} not used: ${reason}`, 'warn');
  };

  /** The guard learned more (names resolved, ports bound): the registry's endpoints are checked again. */
  recheckRegistry(): void {
    this.guardRegistry();
    this.apply();
  }

  private guardRegistry(): void {
    this.registryRecords = this.registryAll.filter((r) => {
      const verdict = this.o.guard.check(r.address);
      if (verdict.ok) return true;
      const key = `${namespacedKey(r.namespace, r.revision)} ${r.address}`;
      if (!this.refused.has(key) && this.refused.size < MAX_REFUSALS_LOGGED) {
        this.refused.add(key);
        this.o.log(`registry endpoint ${key} not used: ${verdict.reason}`, 'warn');
      }
      return false;
    });
  }

  private apply(): void {
    const listed = [...this.fileRecords, ...this.registryRecords];
    if (this.answered.length) {
      const now = Date.now();
      this.answered = this.answered.filter((r) => now - r.at < ANSWERED_TTL_MS && !listed.some((l) => l.address === r.address && l.revision === r.revision));
    }
    const { index, quarantine, pools, queues } = this.o;
    const change = index.replace(this.answered.length ? [...listed, ...this.answered] : listed);
    // Only lift what is quarantined: a lift is a tombstone every replica hears.
    for (const a of change.changedAddresses) if (quarantine.isQuarantined(a)) quarantine.lift(a);
    for (const a of change.removedAddresses) pools.close(a);
    for (const r of change.changedRevisions) queues.drain(r);
  }
}
