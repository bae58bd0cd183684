import type { Logger } from '@orrery/log';
// The subpath, not the barrel: the barrel's zod schemas would cost every worker's start (docs/performance.md "coldstart").
import { backoffDelay } from '@orrery/spec/backoff-delay';
import { DEFAULT_LEASE_TTL_SECONDS, instanceKey, registerBody, type WorkerIdentity } from './worker-instance.ts';

export interface RegistrarOptions {
  /** One or more registry base URLs; a failing one is rotated past. */
  urls: string[];
  worker: WorkerIdentity;
  /** The revision's registration credential, sent as `Authorization: Bearer …` on every call. Never logged. */
  credential?: string;
  leaseTtlSeconds?: number;
  log: Logger;
  fetch?: typeof fetch;
  /** Per-call timeout; default 5 s. */
  callTimeoutMs?: number;
  /** Backoff bounds for failed calls; default 500 ms … 15 s. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

type Outcome = { kind: 'ok' } | { kind: 'not_found' } | { kind: 'failed'; reason: string };

/**
 * Keeps the worker registered with a lease: register once, heartbeat every TTL/3,
 * re-register when the registry has forgotten the instance (not_found), deregister on
 * stop. Best effort: while the registry is unreachable the worker keeps serving and
 * calls are retried with jittered exponential backoff.
 */
export class Registrar {
  private readonly ttl: number;
  private readonly doFetch: typeof fetch;
  private urlIndex = 0;
  private registered = false;
  private everRegistered = false;
  private failures = 0;
  private rounds = 0;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly opts: RegistrarOptions) {
    if (opts.urls.length === 0) throw new TypeError('registrar needs at least one registry URL');
    this.ttl = opts.leaseTtlSeconds ?? DEFAULT_LEASE_TTL_SECONDS;
    this.doFetch = opts.fetch ?? fetch;
  }

  get isRegistered(): boolean {
    return this.registered;
  }

  start(): void {
    this.schedule(0);
  }

  /** Stops heartbeats and deregisters (bounded by the call timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    if (!this.everRegistered) return;
    const outcome = await this.call('/api/v1/registry/deregister', instanceKey(this.opts.worker, this.ttl));
    if (outcome.kind === 'failed') this.opts.log.warn('registry deregister failed; the lease will expire on its own', { reason: outcome.reason });
    else this.opts.log.info('deregistered from the registry');
    this.registered = false;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.running = this.step().finally(() => (this.running = undefined));
    }, ms);
    this.timer.unref();
  }

  private async step(): Promise<void> {
    const log = this.opts.log;
    if (!this.registered) {
      const outcome = await this.call('/api/v1/registry/register', registerBody(this.opts.worker, this.ttl));
      if (outcome.kind === 'ok') {
        if (this.failures > 0) log.info('registry reachable again', { afterFailures: this.failures });
        this.failures = 0;
        this.rounds = 0;
        this.registered = true;
        this.everRegistered = true;
        log.info('registered in the registry', { instanceId: this.opts.worker.instanceId, leaseTtlSeconds: this.ttl });
        return this.schedule(this.heartbeatMs());
      }
      return this.retry('register', outcome.kind === 'failed' ? outcome.reason : 'not_found');
    }
    const outcome = await this.call('/api/v1/registry/heartbeat', instanceKey(this.opts.worker, this.ttl));
    if (outcome.kind === 'ok') {
      if (this.failures > 0) log.info('registry reachable again', { afterFailures: this.failures });
      this.failures = 0;
      this.rounds = 0;
      return this.schedule(this.heartbeatMs());
    }
    if (outcome.kind === 'not_found') {
      // The lease expired (or the registry lost it): register again at once.
      log.warn('registry no longer knows this instance; registering again');
      this.registered = false;
      return this.schedule(0);
    }
    return this.retry('heartbeat', outcome.reason);
  }

  private retry(what: string, reason: string): void {
    this.failures++;
    // Log the first failure and then every tenth, so a long outage does not flood the log.
    if (this.failures === 1 || this.failures % 10 === 0) {
      this.opts.log.warn(`registry ${what} failed; still serving, will retry`, { reason, failures: this.failures });
    }
    // Try every registry URL in turn at once; back off only after a whole round failed.
    this.urlIndex = (this.urlIndex + 1) % this.opts.urls.length;
    if (this.urlIndex !== 0) return this.schedule(50);
    this.rounds++;
    const base = backoffDelay(this.rounds - 1, { initialMs: this.opts.minBackoffMs ?? 500, maxMs: this.opts.maxBackoffMs ?? 15_000 });
    this.schedule(base * (0.8 + Math.random() * 0.4));
  }

  private heartbeatMs(): number {
    return (this.ttl * 1000) / 3;
  }

  private async call(path: string, body: unknown): Promise<Outcome> {
    const base = this.opts.urls[this.urlIndex]!.replace(/\/+$/, '');
    try {
      const res = await this.doFetch(base + path, {
        method: 'POST',
        headers: this.opts.credential ? { 'content-type': 'application/json', authorization: `Bearer ${this.opts.credential}` } : { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.opts.callTimeoutMs ?? 5000),
      });
      const text = await res.text();
      let envelope: { code?: string; message?: string } = {};
      try {
        envelope = JSON.parse(text) as typeof envelope;
      } catch {
        /* not the registry's envelope; judged by status below */
      }
      if (res.ok && (envelope.code === undefined || envelope.code === 'ok')) return { kind: 'ok' };
      if (res.status === 404 || envelope.code === 'not_found') return { kind: 'not_found' };
      return { kind: 'failed', reason: `${base}${path} answered HTTP ${res.status} ${envelope.code ?? ''} ${envelope.message ?? text.slice(0, 200)}`.trim() };
    } catch (err) {
      return { kind: 'failed', reason: `${base}${path}: ${(err as Error).message}` };
    }
  }
}
