import { V1MicroTime } from '@kubernetes/client-node';
import { type KubeClient, type KubeObject, isConflict } from './kube-client.ts';
import { apiErrorText } from './api-error-text.ts';

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
  /** Written on the Lease while this replica holds it, e.g. the URL followers forward leader-only calls to. */
  holderAnnotations?: Record<string, string>;
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
  private observed?: { rv: string; holder: string; at: number; durationMs: number; annotations: Record<string, string> };
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

  /**
   * The holder as of the last round (at most one retry period old) and the annotations it wrote;
   * undefined when nobody holds the Lease or the holder's term has expired by our clock.
   */
  get leader(): { identity: string; annotations: Record<string, string> } | undefined {
    const o = this.observed;
    if (!o || o.holder === '' || Date.now() > o.at + o.durationMs) return undefined;
    return { identity: o.holder, annotations: o.annotations };
  }

  /** Our annotations merged over the Lease's own (other writers' keys stay). */
  private annotate(metadata: KubeObject['metadata']): KubeObject['metadata'] {
    if (!this.o.holderAnnotations) return metadata;
    return { ...metadata, annotations: { ...metadata.annotations, ...this.o.holderAnnotations } };
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
          lease.spec = {
            ...lease.spec,
            holderIdentity: '',
            leaseDurationSeconds: 1,
            // Read back as a Date (3 fractional digits), which the API server would refuse.
            acquireTime: lease.spec.acquireTime ? new V1MicroTime(lease.spec.acquireTime) : undefined,
            renewTime: new V1MicroTime(),
          };
          await this.client.replace(lease);
        }
      } catch (err) {
        this.o.log?.(`releasing lease failed: ${apiErrorText(err)}`);
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
      this.o.log?.(`lease ${this.o.namespace}/${this.o.name}: ${apiErrorText(err)}`);
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
    // Lease times are MicroTime: the API server refuses anything but six fractional digits.
    const now = new V1MicroTime();
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
        const created = await this.client.create<Lease>({ apiVersion: LEASE_API, kind: 'Lease', metadata: this.annotate({ name: this.o.name, namespace: this.o.namespace }), spec });
        this.observed = { rv: created.metadata.resourceVersion ?? '', holder: this.o.identity, at: Date.now(), durationMs: this.leaseDurationMs, annotations: created.metadata.annotations ?? {} };
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
      this.observed = { rv, holder, at: Date.now(), durationMs: (cur.leaseDurationSeconds ?? 15) * 1000, annotations: lease.metadata.annotations ?? {} };
    }
    const mine = holder === this.o.identity;
    const expired = holder === '' || Date.now() > this.observed.at + this.observed.durationMs;
    if (!mine && !expired) return false;
    const next: Lease = {
      ...lease,
      metadata: this.annotate(lease.metadata),
      spec: {
        ...spec,
        acquireTime: mine && cur.acquireTime ? new V1MicroTime(cur.acquireTime) : spec.acquireTime,
        leaseTransitions: (cur.leaseTransitions ?? 0) + (mine ? 0 : 1),
      },
    };
    try {
      const stored = await this.client.replace(next);
      this.observed = { rv: stored.metadata.resourceVersion ?? '', holder: this.o.identity, at: Date.now(), durationMs: this.leaseDurationMs, annotations: stored.metadata.annotations ?? {} };
      return true;
    } catch (err) {
      if (isConflict(err)) return false; // lost the race this round
      throw err;
    }
  }
}
