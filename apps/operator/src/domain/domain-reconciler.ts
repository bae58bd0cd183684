/**
 * The custom-domain reconciler of both backends, over a DomainBackend (domain-backend.ts): one
 * level-triggered pass over every Function (a host is claimed cluster-wide) decides who holds
 * each host and whether its certificate is good (domain-plan.ts), hands the good certificates to
 * the routers (only when they changed), and keeps each Function's status.domains, which the
 * Function reconciler writes with the rest of its status (`statusOf`): one writer per status.
 * Passes run on Function and Secret changes (`kick`) and every `intervalMs`, which is also how
 * an expiring certificate leaves the routers.
 */
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { DomainStatus, OrreryFunction } from '@orrery/spec';
import { objectKey } from '../queue/object-key.ts';
import { SerialPass } from '../queue/serial-pass.ts';
import type { DomainBackend, TlsSecret } from './domain-backend.ts';
import { planDomains, secretKey, secretsToRead } from './domain-plan.ts';

export interface DomainReconcilerOptions {
  backend: DomainBackend;
  /** A Function's status.domains changed: reconcile it (its status is written there). */
  functionChanged: (key: string) => void;
  now: () => Date;
  log: (msg: string, fields?: Record<string, unknown>) => void;
}

export class DomainReconciler {
  /** From the last pass; undefined before the first one (statusOf then keeps what is stored). */
  private statuses: Map<string, DomainStatus[]> | undefined;
  private bundleDigest: string | undefined;
  private readonly loop: SerialPass;

  constructor(private readonly o: DomainReconcilerOptions) {
    this.loop = new SerialPass(() => this.reconcile(), (err) => o.log(`custom domains: ${(err as Error).message} (retried on the next change or pass)`, { error: (err as Error).message }));
  }

  private unwatch: (() => void) | undefined;
  /** Kicks before start() are dropped: a pass over caches still listing would drop certificates. */
  private started = false;

  /** First pass now, then every `intervalMs` (certificate expiry, Secrets changed unseen) and on every Secret change. */
  start(intervalMs = 30_000): void {
    this.started = true;
    this.unwatch = this.o.backend.onSecretsChanged?.(() => this.kick());
    this.loop.start(intervalMs);
  }

  /** Something a pass reads changed (a Function, a TLS Secret). */
  kick(): void {
    if (this.started) this.loop.kick();
  }

  stop(): Promise<void> {
    this.unwatch?.();
    return this.loop.stop(5_000);
  }

  /** status.domains for the Function reconciler: the last pass's, or the stored one before any pass. */
  statusOf(fn: OrreryFunction): DomainStatus[] | undefined {
    if (!this.statuses) return fn.status?.domains;
    return this.statuses.get(objectKey(fn.metadata.namespace, fn.metadata.name));
  }

  async reconcile(): Promise<void> {
    const b = this.o.backend;
    const functions = await b.functions();
    const secrets = new Map<string, TlsSecret | undefined>();
    for (const s of secretsToRead(functions)) secrets.set(secretKey(s.namespace, s.name), await b.tlsSecret(s.namespace, s.name));
    const plan = planDomains(functions, secrets, this.o.now());

    const digest = createHash('sha256');
    for (const [host, pem] of [...plan.bundle].sort(([a], [c]) => (a < c ? -1 : 1))) digest.update(`${host}\0${pem}\0`);
    const bundleDigest = digest.digest('hex');
    if (bundleDigest !== this.bundleDigest) {
      await b.writeRouterCertificates(plan.bundle);
      this.bundleDigest = bundleDigest;
      this.o.log(`router certificates: ${plan.bundle.size} host(s) at ${b.routerCertificatesAt}`, { hosts: [...plan.bundle.keys()].sort() });
    }

    const before = this.statuses;
    this.statuses = plan.statuses;
    const keys = new Set([...plan.statuses.keys(), ...(before?.keys() ?? [])]);
    for (const key of keys) if (!before || !isDeepStrictEqual(before.get(key), plan.statuses.get(key))) this.o.functionChanged(key);
  }
}
