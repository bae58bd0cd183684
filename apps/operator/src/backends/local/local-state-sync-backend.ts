/**
 * StateSync on the local backend: renders the sync settings (a 0600 file under
 * `<dataDir>/statesync/<ns>/<name>.json` plus router flags), rolls them out to the router
 * replicas by restarting them one at a time, then every few seconds reads each replica's
 * statesync `status()` (GET <admin>/v1/stats) and publishes it in the StateSync status.
 * One ReplicaSet serves one StateSync: when several target the routers, the oldest-named wins
 * and the others report Conflict.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StateSync } from '@orrery/spec';
import type { ResourceStore, Watch } from '@orrery/store';
import type { ReplicaSet } from './local-router-fleet.ts';
import { renderSettings, syncableName, unsupportedSyncables } from './render-settings.ts';
import { buildSyncStatus, type ReplicaReport, type ReportedSyncStatus } from './replica-status.ts';
import { SerialPass } from '../queue/serial-pass.ts';

type Log = (msg: string, fields?: Record<string, unknown>) => void;

export interface StateSyncReconcilerOptions {
  store: ResourceStore;
  dataDir: string;
  replicas: ReplicaSet;
  intervalMs?: number;
  log?: Log;
}

const NO_SYNC = 'none';

export async function readReplica(name: string, adminUrl: string | undefined, timeoutMs = 2000): Promise<ReplicaReport> {
  if (!adminUrl) return { replica: name, error: 'replica not running' };
  try {
    const res = await fetch(`${adminUrl}/v1/stats`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return { replica: name, error: `GET /v1/stats answered ${res.status}` };
    const body = (await res.json()) as { statesync?: ReportedSyncStatus };
    if (!body.statesync) return { replica: name, error: 'running without statesync (no --redis-url)' };
    const syncables = body.statesync.syncables.map((x) => ({ ...x, syncable: syncableName(x.syncable) }));
    return { replica: name, status: { ...body.statesync, syncables } };
  } catch (err) {
    return { replica: name, error: `unreachable: ${(err as Error).message}` };
  }
}

export class StateSyncReconciler {
  private watch?: Watch;
  private readonly runner: SerialPass;
  private readonly log: Log;

  constructor(private readonly o: StateSyncReconcilerOptions) {
    this.log = o.log ?? (() => {});
    this.runner = new SerialPass(() => this.pass(), (err) => this.log('statesync reconcile failed', { error: String((err as Error).message ?? err) }));
  }

  async start(): Promise<void> {
    this.watch = this.o.store.watch('StateSync', {}, (e) => {
      // Status writes echo back; only spec changes and deletions need a pass now.
      if (e.type !== 'modified' || (e.object.metadata.generation ?? 0) !== (e.object.status?.observedGeneration ?? -1)) this.runner.kick();
    });
    this.runner.start(this.o.intervalMs ?? 3000);
  }


  async stop(): Promise<void> {
    this.watch?.close();
    await this.runner.stop(60_000);
  }

  private async pass(): Promise<void> {
    const items = ((await this.o.store.list('StateSync')).items as StateSync[]).sort((a, b) =>
      `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(`${b.metadata.namespace}/${b.metadata.name}`),
    );
    const active = items.find((s) => s.spec.target.component === 'router');
    const now = () => new Date();
    for (const ss of items) {
      if (ss === active) continue;
      const msg = ss.spec.target.component === 'router' ? `${active!.metadata.namespace}/${active!.metadata.name} already configures the routers` : undefined;
      const status = buildSyncStatus({
        prev: ss.status,
        generation: ss.metadata.generation,
        renderError: msg ? { reason: 'Conflict', message: msg } : { reason: 'UnsupportedTarget', message: `target.component ${ss.spec.target.component}: the local backend syncs router replicas only` },
        notes: [],
        reports: [],
        now: now(),
      });
      await this.o.store.updateStatus('StateSync', ss.metadata.namespace, ss.metadata.name, status);
    }
    if (!active) {
      // No StateSync any more: routers go back to replica-local tables.
      if (this.o.replicas.fingerprint() !== undefined && this.o.replicas.fingerprint() !== NO_SYNC) {
        this.log('no StateSync: restarting routers without Redis');
        await this.o.replicas.configure(undefined, NO_SYNC);
      }
      return;
    }
    const rendered = renderSettings(active.spec);
    const key = `${active.metadata.namespace}/${active.metadata.name}`;
    if (!rendered.ok) {
      await this.o.store.updateStatus('StateSync', active.metadata.namespace, active.metadata.name, buildSyncStatus({
        prev: active.status, generation: active.metadata.generation, renderError: rendered, notes: [], reports: [], now: now(),
      }));
      return;
    }
    if (this.o.replicas.fingerprint() !== rendered.fingerprint) {
      const dir = join(this.o.dataDir, 'statesync', active.metadata.namespace);
      mkdirSync(dir, { recursive: true });
      // Holds the Redis URL, which may carry a password.
      writeFileSync(join(dir, `${active.metadata.name}.json`), JSON.stringify(rendered.settings, null, 2), { mode: 0o600 });
      const count = this.o.replicas.replicas().length;
      await this.o.store.updateStatus('StateSync', active.metadata.namespace, active.metadata.name, buildSyncStatus({
        prev: active.status, generation: active.status?.observedGeneration, rollingOut: `restarting ${count} router replica(s) with settings ${rendered.fingerprint}`, notes: [], reports: [], now: now(),
      }));
      this.log('rolling out statesync settings', { stateSync: key, fingerprint: rendered.fingerprint, replicas: count });
      try {
        await this.o.replicas.configure(rendered.router, rendered.fingerprint);
      } catch (err) {
        const message = String((err as Error).message ?? err).split('\n')[0]!;
        this.log('statesync rollout failed', { stateSync: key, error: message });
        await this.o.store.updateStatus('StateSync', active.metadata.namespace, active.metadata.name, buildSyncStatus({
          // This generation was tried and failed: observed, so kstatus reads Stalled (Failed), not a lag.
          prev: active.status, generation: active.metadata.generation, renderError: { reason: 'RolloutFailed', message }, notes: [], reports: [], now: now(),
        }));
        return;
      }
    }
    const reports = await Promise.all(this.o.replicas.replicas().map((r) => readReplica(r.name, r.adminUrl)));
    const extra = unsupportedSyncables(rendered.settings);
    const notes = extra.length ? [`not registered by the router (ignored): ${extra.join(', ')}`] : [];
    if (this.o.replicas.external) notes.push('routers run outside this operator: they keep their own --redis-* flags (rendered settings file written)');
    if (this.runner.stopped) return;
    const fresh = (await this.o.store.get('StateSync', active.metadata.namespace, active.metadata.name)) as StateSync | undefined;
    if (!fresh) return;
    await this.o.store.updateStatus('StateSync', active.metadata.namespace, active.metadata.name, buildSyncStatus({
      prev: fresh.status, generation: active.metadata.generation, notes, reports, now: now(),
    }));
  }
}
