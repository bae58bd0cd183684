import { MergeTable, type DeltaSyncable, type StalePolicy, type TombstoneSupport } from '@orrery/statesync';

interface QuarantineRecord {
  /** Quarantined until this time (ms since epoch). */
  untilMs: number;
  /** When this quarantine was set; a peer's lift (tombstone) only removes quarantines set before it. */
  atMs: number;
}

function finiteNumber(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new Error(`quarantine record: ${field} must be a number`);
  return value;
}

/**
 * Which endpoints are quarantined (e.g. after failed proxies), shared by every router replica.
 * Entity id = the endpoint address exactly as written. Merge keeps the later `until`; a record is
 * stale once its time has passed; `lift` travels as a tombstone.
 */
export class EndpointQuarantineTable extends MergeTable<QuarantineRecord> implements DeltaSyncable, StalePolicy, TombstoneSupport {
  constructor(opts: { now?: () => number; namespace?: string } = {}) {
    super({
      namespace: opts.namespace ?? 'router-quarantine',
      now: opts.now,
      toJson: (r) => ({ until: r.untilMs, at: r.atMs }),
      fromJson: (j) => ({ untilMs: finiteNumber(j.until, 'until'), atMs: finiteNumber(j.at, 'at') }),
      prefer: (incoming, existing) => incoming.untilMs > existing.untilMs,
      stampMs: (r) => r.atMs,
      expired: (r, nowMs) => r.untilMs <= nowMs,
    });
  }

  /** Quarantine until `untilMs`; an existing later quarantine is kept. Marks dirty when it changes. */
  quarantine(address: string, untilMs: number): void {
    if (!address) throw new Error('quarantine: address must be non-empty');
    if (!Number.isFinite(untilMs)) throw new Error('quarantine: untilMs must be a finite number');
    this.setLocal(address, { untilMs, atMs: this.now() });
  }

  /** End a quarantine here and, through a tombstone on the next push, on every replica. */
  lift(address: string): void {
    if (!address) throw new Error('lift: address must be non-empty');
    this.deleteLocally(address);
  }

  isQuarantined(address: string, nowMs?: number): boolean {
    // The data plane asks for every request; with nothing quarantined it pays no clock read.
    if (this.size === 0) return false;
    return this.getRecord(address, nowMs ?? this.now()) !== undefined;
  }

  /** Live quarantines, soonest-ending first. */
  entries(): Array<{ address: string; untilMs: number }> {
    return this.liveRecords()
      .map(([address, r]) => ({ address, untilMs: r.untilMs }))
      .sort((a, b) => a.untilMs - b.untilMs || a.address.localeCompare(b.address));
  }
}
