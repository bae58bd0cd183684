/**
 * StateSync on the local backend (state-sync/state-sync-backend.ts): the one target is the
 * operator's router replicas. Renders the sync settings (a 0600 file under
 * `<dataDir>/statesync/<ns>/<name>.json` plus router flags), rolls them out by restarting the
 * replicas one at a time, then reads each replica's statesync `status()` (GET <admin>/v1/stats).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StateSync } from '@orrery/spec';
import type { ReplicaSet } from './local-router-fleet.ts';
import { readReplica } from '../../state-sync/read-replica.ts';
import { renderSettings, unsupportedSyncables } from '../../state-sync/render-settings.ts';
import type { StateSyncBackend, StateSyncTarget, WriteSyncStatus } from '../../state-sync/state-sync-backend.ts';

type Log = (msg: string, fields?: Record<string, unknown>) => void;

export interface LocalStateSyncBackendOptions {
  dataDir: string;
  replicas: ReplicaSet;
  log?: Log;
}

/** The fingerprint of routers running without Redis (no StateSync). */
const NO_SYNC = 'none';

export class LocalStateSyncBackend implements StateSyncBackend {
  private readonly log: Log;

  constructor(private readonly o: LocalStateSyncBackendOptions) {
    this.log = o.log ?? (() => {});
  }

  target(ss: StateSync): StateSyncTarget {
    if (ss.spec.target.component === 'router') return { key: 'router', describe: 'the routers' };
    return { unsupported: { reason: 'UnsupportedTarget', message: `target.component ${ss.spec.target.component}: the local backend syncs router replicas only` } };
  }

  async sync(ss: StateSync, write: WriteSyncStatus): Promise<void> {
    const rendered = renderSettings(ss.spec);
    const key = `${ss.metadata.namespace}/${ss.metadata.name}`;
    if (!rendered.ok) return write({ renderError: rendered });
    if (this.o.replicas.fingerprint() !== rendered.fingerprint) {
      const dir = join(this.o.dataDir, 'statesync', ss.metadata.namespace);
      mkdirSync(dir, { recursive: true });
      // Holds the Redis URL, which may carry a password.
      writeFileSync(join(dir, `${ss.metadata.name}.json`), JSON.stringify(rendered.settings, null, 2), { mode: 0o600 });
      const count = this.o.replicas.replicas().length;
      await write({ generation: ss.status?.observedGeneration, rollingOut: `restarting ${count} router replica(s) with settings ${rendered.fingerprint}` });
      this.log('rolling out statesync settings', { stateSync: key, fingerprint: rendered.fingerprint, replicas: count });
      try {
        await this.o.replicas.configure(rendered.router, rendered.fingerprint);
      } catch (err) {
        const message = String((err as Error).message ?? err).split('\n')[0]!;
        this.log('statesync rollout failed', { stateSync: key, error: message });
        // This generation was tried and failed: observed, so kstatus reads Stalled (Failed), not a lag.
        return write({ renderError: { reason: 'RolloutFailed', message } });
      }
    }
    const reports = await Promise.all(this.o.replicas.replicas().map((r) => readReplica(r.name, r.adminUrl)));
    const extra = unsupportedSyncables(rendered.settings);
    const notes = extra.length ? [`not registered by the router (ignored): ${extra.join(', ')}`] : [];
    if (this.o.replicas.external) notes.push('routers run outside this operator: they keep their own --redis-* flags (rendered settings file written)');
    await write({ notes, reports });
  }

  async unused(): Promise<void> {
    // No StateSync any more: routers go back to replica-local tables.
    if (this.o.replicas.fingerprint() !== undefined && this.o.replicas.fingerprint() !== NO_SYNC) {
      this.log('no StateSync: restarting routers without Redis');
      await this.o.replicas.configure(undefined, NO_SYNC);
    }
  }
}
