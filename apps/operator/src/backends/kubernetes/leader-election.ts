import { type KubeClient, type KubeObject, isConflict } from './kube-client.ts';

export interface LeaderElectionOptions {
  namespace: string;
  /** Lease name, e.g. `orrery-operator`. */
  name: string;
  /** Unique per replica (pod name + random suffix). */
  identity: string;
  /** How long a lease is valid without renewal (client-go default 15 s). */
  leaseDurationMs?: number;
  /** A leader that could not renew for this long steps down (must be < leaseDurationMs; default 10 s). */
  renewDeadlineMs?: number;
  /** Interval between acquire/renew attempts (default 2 s). */
  retryPeriodMs?: number;
  onStartedLeading: () => void | Promise<void>;
  onStoppedLeading: () => void | Promise<void>;
  log?: (msg: string) => void;
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: Date | string;
  renewTime?: Date | string;
  leaseTransitions?: number;
}
type Lease = KubeObject & { spec?: LeaseSpec };

const LEASE_API = 'coordination.k8s.io/v1';

/**
 * Leader election on a coordination.k8s.io/v1 Lease, as client-go does it (client-node has none).
 * Writes are replaces guarded by resourceVersion, so two candidates can never both win a round.
 * Expiry is judged by *our* clock from when we last saw the record change (not by the holder's
 * renewTime), so clock skew between nodes cannot make two leaders. A leader that fails to renew
 * within renewDeadline steps down before the lease can expire for others.
 */
export class LeaderElector {
  private leading = false;
  private stopped = true;
  private timer?: NodeJS.Timeout;
  private observed?: { rv: string; holder: string; at: number; durationMs: number };
  private lastRenew = 0;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private loop?: Promise<void>;

  constructor(
    private readonly client: KubeClient,
    private readonly o: LeaderElectionOptions,
  ) {
    this.leaseDurationMs = o.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = o.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = o.retryPeriodMs ?? 2_000;
    if (this.renewDeadlineMs >= this.leaseDurationMs) throw new Error('renewDeadlineMs must be shorter than leaseDurationMs');
  }

  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /**
   * Stop campaigning. With `release` (a graceful shutdown) the lease is handed back at once so
   * another replica takes over without waiting for expiry; without it this behaves like a crash.
   */
  async stop({ release = true }: { release?: boolean } = {}): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.loop;
    const wasLeading = this.leading;
    await this.stepDown();
    if (release && wasLeading) {
      try {
        const lease = await this.client.get<Lease>(LEASE_API, 'Lease', this.o.namespace, this.o.name);
        if (lease?.spec?.holderIdentity === this.o.identity) {
          lease.spec = { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: new Date() };
          await this.client.replace(lease);
        }
      } catch (err) {
        this.o.log?.(`releasing lease failed: ${(err as Error).message}`);
      }
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.loop = this.tick().finally(() => this.schedule(this.retryPeriodMs));
    }, delayMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    let ok = false;
    try {
      ok = await this.tryAcquireOrRenew();
    } catch (err) {
      this.o.log?.(`lease ${this.o.namespace}/${this.o.name}: ${(err as Error).message}`);
    }
    if (this.stopped) return;
    if (ok) {
      this.lastRenew = Date.now();
      if (!this.leading) {
        this.leading = true;
        this.o.log?.(`${this.o.identity} became leader`);
        await this.o.onStartedLeading();
      }
    } else if (this.leading && Date.now() - this.lastRenew >= this.renewDeadlineMs) {
      this.o.log?.(`${this.o.identity} could not renew within ${this.renewDeadlineMs} ms: stepping down`);
      await this.stepDown();
    } else if (this.leading && this.observed && this.observed.holder !== this.o.identity) {
      await this.stepDown(); // someone else holds it: never keep acting
    }
  }

  private async stepDown(): Promise<void> {
    if (!this.leading) return;
    this.leading = false;
    await this.o.onStoppedLeading();
  }

  /** One round; true when we hold the lease afterwards. */
  private async tryAcquireOrRenew(): Promise<boolean> {
    const now = new Date();
    const spec: LeaseSpec = {
      holderIdentity: this.o.identity,
      leaseDurationSeconds: Math.max(1, Math.ceil(this.leaseDurationMs / 1000)),
      acquireTime: now,
      renewTime: now,
      leaseTransitions: 0,
    };
    const lease = await this.client.get<Lease>(LEASE_API, 'Lease', this.o.namespace, this.o.name);
    if (!lease) {
      try {
        await this.client.create<Lease>({ apiVersion: LEASE_API, kind: 'Lease', metadata: { name: this.o.name, namespace: this.o.namespace }, spec });
        return true;
      } catch (err) {
        if (isConflict(err)) return false; // someone created it first
        throw err;
      }
    }
    const cur = lease.spec ?? {};
    const holder = cur.holderIdentity ?? '';
    const rv = lease.metadata.resourceVersion ?? '';
    if (!this.observed || this.observed.rv !== rv) {
      this.observed = { rv, holder, at: Date.now(), durationMs: (cur.leaseDurationSeconds ?? 15) * 1000 };
    }
    const mine = holder === this.o.identity;
    const expired = holder === '' || Date.now() > this.observed.at + this.observed.durationMs;
    if (!mine && !expired) return false;
    const next: Lease = {
      ...lease,
      spec: {
        ...spec,
        acquireTime: mine && cur.acquireTime ? new Date(cur.acquireTime) : spec.acquireTime,
        leaseTransitions: (cur.leaseTransitions ?? 0) + (mine ? 0 : 1),
      },
    };
    try {
      const stored = await this.client.replace(next);
      this.observed = { rv: stored.metadata.resourceVersion ?? '', holder: this.o.identity, at: Date.now(), durationMs: this.leaseDurationMs };
      return true;
    } catch (err) {
      if (isConflict(err)) return false; // lost the race this round
      throw err;
    }
  }
}
