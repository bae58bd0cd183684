/**
 * StateSync on Kubernetes. Every few seconds (and on every StateSync change) each StateSync:
 * renders its settings into a ConfigMap (and a Secret for an inline Redis URL), patches the
 * target Deployments (same namespace, the target's labels) with the env and the settings-hash
 * annotation — a changed hash is a rollout — then reads each target pod's statesync `status()`
 * over its admin port (GET /v1/stats) and publishes it in the StateSync status.
 * One StateSync per target: when several select the same Deployments, the oldest-named wins and
 * the others report Conflict. A deleted StateSync takes its env and annotation back off.
 */
import { PatchStrategy } from '@kubernetes/client-node';
import type { StateSync } from '@orrery/spec';
import type { ResourceStore, Watch } from '@orrery/store';
import { buildSyncStatus } from '../../state-sync/replica-status.ts';
import { readReplica } from '../../state-sync/state-sync-reconciler.ts';
import type { KubeClient, KubeObject } from './kube-client.ts';
import { type PodAdminView, podAdminUrl } from './pod-admin-url.ts';
import {
  SETTINGS_HASH_ANNOTATION,
  STATESYNC_ANNOTATION,
  STATESYNC_FIELD_MANAGER,
  renderKubeSyncSettings,
  renderSettingsConfigMap,
  renderTargetPatch,
  renderTargetRelease,
  renderUrlSecret,
  selectorString,
  targetSelector,
  unknownSyncables,
} from './render/state-sync.ts';
import { SerialPass } from '../../queue/serial-pass.ts';

type Log = (msg: string, fields?: Record<string, unknown>) => void;

export interface KubernetesStateSyncsOptions {
  intervalMs?: number;
  /** Admin port of a target pod whose container declares no port named `admin` (the chart's router.adminPort). */
  adminPort?: number;
  log?: Log;
}

interface Container {
  name: string;
  ports?: Array<{ name?: string; containerPort: number }>;
}
interface DeploymentView extends KubeObject {
  spec?: { replicas?: number; template?: { metadata?: { annotations?: Record<string, string> }; spec?: { containers?: Container[] } } };
  status?: { observedGeneration?: number; updatedReplicas?: number; readyReplicas?: number };
}

const keyOf = (ss: StateSync) => `${ss.metadata.namespace}/${ss.metadata.name}`;

export class KubeStateSyncReconciler {
  private watch?: Watch;
  private readonly runner: SerialPass;
  private readonly log: Log;
  private readonly released: StateSync[] = [];

  constructor(
    private readonly client: KubeClient,
    private readonly store: ResourceStore,
    private readonly o: KubernetesStateSyncsOptions = {},
  ) {
    this.log = o.log ?? (() => {});
    this.runner = new SerialPass(() => this.pass(), (err) => this.log('statesync reconcile failed', { error: String((err as Error).message ?? err) }));
  }

  async start(): Promise<void> {
    this.watch = this.store.watch('StateSync', {}, (e) => {
      if (e.type === 'deleted') this.released.push(e.object as StateSync);
      // Status writes echo back; only spec changes and deletions need a pass now.
      if (e.type !== 'modified' || (e.object.metadata.generation ?? 0) !== (e.object.status?.observedGeneration ?? -1)) this.runner.kick();
    });
    this.runner.start(this.o.intervalMs ?? 3000);
    await Promise.resolve();
  }

  async stop(): Promise<void> {
    this.watch?.close();
    await this.runner.stop(30_000);
  }


  private async pass(): Promise<void> {
    for (const gone of this.released.splice(0)) await this.release(gone);
    const items = ((await this.store.list('StateSync')).items as StateSync[]).sort((a, b) => keyOf(a).localeCompare(keyOf(b)));
    const owners = new Map<string, StateSync>();
    for (const ss of items) {
      if (this.runner.stopped) return;
      const target = `${ss.metadata.namespace}|${selectorString(targetSelector(ss))}`;
      const owner = owners.get(target);
      if (owner) {
        await this.writeStatus(ss, { renderError: { reason: 'Conflict', message: `${keyOf(owner)} already configures ${selectorString(targetSelector(ss))}` } });
        continue;
      }
      owners.set(target, ss);
      await this.reconcile(ss);
    }
  }

  private async writeStatus(ss: StateSync, i: Partial<Parameters<typeof buildSyncStatus>[0]>): Promise<void> {
    if (this.runner.stopped) return;
    const fresh = (await this.store.get('StateSync', ss.metadata.namespace, ss.metadata.name)) as StateSync | undefined;
    if (!fresh) return;
    await this.store.updateStatus(
      'StateSync',
      ss.metadata.namespace,
      ss.metadata.name,
      buildSyncStatus({ prev: fresh.status, generation: ss.metadata.generation, notes: [], reports: [], now: new Date(), ...i }),
    );
  }

  private async deployments(ss: StateSync): Promise<DeploymentView[]> {
    return (await this.client.list<DeploymentView>('apps/v1', 'Deployment', ss.metadata.namespace, selectorString(targetSelector(ss)))).items;
  }

  private async applyAs(obj: object, manager: string): Promise<void> {
    await this.client.objects.patch(structuredClone(obj) as KubeObject, undefined, undefined, manager, true, PatchStrategy.ServerSideApply);
  }

  private async reconcile(ss: StateSync): Promise<void> {
    const rendered = renderKubeSyncSettings(ss);
    if (!rendered.ok) return this.writeStatus(ss, { renderError: rendered });
    const { settings, hash } = rendered;
    await this.client.apply(renderSettingsConfigMap(ss, settings));
    const secret = renderUrlSecret(ss, settings);
    if (secret) await this.client.apply(secret);

    const deployments = await this.deployments(ss);
    const selector = selectorString(targetSelector(ss));
    if (deployments.length === 0) return this.writeStatus(ss, { renderError: { reason: 'NoTarget', message: `no Deployment labelled ${selector} in ${ss.metadata.namespace}` } });
    const rolling: string[] = [];
    for (const d of deployments) {
      const containers = d.spec?.template?.spec?.containers ?? [];
      const container = containers.find((c) => c.name === ss.spec.target.component)?.name ?? containers[0]?.name ?? ss.spec.target.component;
      if (d.spec?.template?.metadata?.annotations?.[SETTINGS_HASH_ANNOTATION] !== hash) {
        this.log('rolling out statesync settings', { stateSync: keyOf(ss), deployment: d.metadata.name, hash });
        await this.applyAs(renderTargetPatch({ ss, settings, hash, deployment: { name: d.metadata.name, namespace: ss.metadata.namespace }, container }), STATESYNC_FIELD_MANAGER);
        rolling.push(d.metadata.name);
        continue;
      }
      const want = d.spec?.replicas ?? 1;
      const settled = (d.status?.observedGeneration ?? 0) >= (d.metadata.generation ?? 0) && (d.status?.updatedReplicas ?? 0) >= want;
      if (!settled) rolling.push(d.metadata.name);
    }

    const pods = (await this.client.list<PodAdminView>('v1', 'Pod', ss.metadata.namespace, selector)).items.filter((p) => !p.metadata.deletionTimestamp);
    const reports = await Promise.all(
      pods.map((p) => {
        const url = podAdminUrl(p, this.o.adminPort ?? 9090);
        return url ? readReplica(p.metadata.name, url) : Promise.resolve({ replica: p.metadata.name, error: `pod ${p.status?.phase ?? 'Pending'}` });
      }),
    );
    const unknown = unknownSyncables(settings);
    await this.writeStatus(ss, {
      rollingOut: rolling.length ? `rolling out settings ${hash} to ${rolling.join(', ')}` : undefined,
      notes: unknown.length ? [`not registered by the router (ignored): ${unknown.join(', ')}`] : [],
      reports,
    });
  }

  /** Takes a deleted StateSync's env and annotation off the Deployments it configured. */
  private async release(ss: StateSync): Promise<void> {
    try {
      for (const d of await this.deployments(ss)) {
        if (d.spec?.template?.metadata?.annotations?.[STATESYNC_ANNOTATION] !== ss.metadata.name) continue;
        await this.applyAs(renderTargetRelease({ name: d.metadata.name, namespace: ss.metadata.namespace }), STATESYNC_FIELD_MANAGER);
        this.log('statesync settings removed', { stateSync: keyOf(ss), deployment: d.metadata.name });
      }
    } catch (err) {
      this.log('statesync release failed', { stateSync: keyOf(ss), error: String((err as Error).message ?? err) });
    }
  }
}

/** Entry point of StateSyncs on Kubernetes; run it on the elected leader only. */
export async function startKubernetesStateSyncs(client: KubeClient, store: ResourceStore, opts: KubernetesStateSyncsOptions = {}): Promise<KubeStateSyncReconciler> {
  const r = new KubeStateSyncReconciler(client, store, opts);
  await r.start();
  return r;
}
