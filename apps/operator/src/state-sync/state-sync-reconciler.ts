/**
 * StateSync on either backend, over a StateSyncBackend (state-sync-backend.ts). Every few seconds
 * (and on every spec change or deletion) each StateSync in name order is matched to its target; the
 * oldest-named one per target owns it and is synced by the backend, the others report Conflict.
 */
import type { StateSync } from '@orrery/spec';
import type { ResourceStore, Watch } from '@orrery/store';
import { SerialPass } from '../queue/serial-pass.ts';
import { buildSyncStatus, type SyncStatusInput } from './replica-status.ts';
import type { StateSyncBackend } from './state-sync-backend.ts';

type Log = (msg: string, fields?: Record<string, unknown>) => void;

export interface StateSyncReconcilerOptions {
  store: ResourceStore;
  backend: StateSyncBackend;
  intervalMs?: number;
  /** How long stop() waits for a running pass (a local rollout restarts routers one by one). */
  stopTimeoutMs?: number;
  log?: Log;
}

const keyOf = (ss: StateSync) => `${ss.metadata.namespace}/${ss.metadata.name}`;

export class StateSyncReconciler {
  private watch?: Watch;
  private readonly runner: SerialPass;
  private readonly log: Log;
  private readonly released: StateSync[] = [];

  constructor(private readonly o: StateSyncReconcilerOptions) {
    this.log = o.log ?? (() => {});
    this.runner = new SerialPass(() => this.pass(), (err) => this.log('statesync reconcile failed', { error: String((err as Error).message ?? err) }));
  }

  async start(): Promise<void> {
    this.watch = this.o.store.watch('StateSync', {}, (e) => {
      if (e.type === 'deleted' && this.o.backend.release) this.released.push(e.object as StateSync);
      // Status writes echo back; only spec changes and deletions need a pass now.
      if (e.type !== 'modified' || (e.object.metadata.generation ?? 0) !== (e.object.status?.observedGeneration ?? -1)) this.runner.kick();
    });
    this.runner.start(this.o.intervalMs ?? 3000);
  }

  async stop(): Promise<void> {
    this.watch?.close();
    await this.runner.stop(this.o.stopTimeoutMs ?? 30_000);
  }

  private async pass(): Promise<void> {
    const b = this.o.backend;
    for (const gone of this.released.splice(0)) await b.release!(gone);
    const items = ((await this.o.store.list('StateSync')).items as StateSync[]).sort((a, b) => keyOf(a).localeCompare(keyOf(b)));
    const owners = new Map<string, StateSync>();
    for (const ss of items) {
      if (this.runner.stopped) return;
      const target = b.target(ss);
      if ('unsupported' in target) {
        await this.write(ss, { renderError: target.unsupported });
        continue;
      }
      const owner = owners.get(target.key);
      if (owner) {
        await this.write(ss, { renderError: { reason: 'Conflict', message: `${keyOf(owner)} already configures ${target.describe}` } });
        continue;
      }
      owners.set(target.key, ss);
      await b.sync(ss, (i) => this.write(ss, i));
    }
    if (owners.size === 0 && !this.runner.stopped) await b.unused?.();
  }

  private async write(ss: StateSync, i: Partial<SyncStatusInput>): Promise<void> {
    if (this.runner.stopped) return;
    const fresh = (await this.o.store.get('StateSync', ss.metadata.namespace, ss.metadata.name)) as StateSync | undefined;
    if (!fresh) return;
    await this.o.store.updateStatus(
      'StateSync',
      ss.metadata.namespace,
      ss.metadata.name,
      buildSyncStatus({ prev: fresh.status, generation: ss.metadata.generation, notes: [], reports: [], now: new Date(), ...i }),
    );
  }
}
