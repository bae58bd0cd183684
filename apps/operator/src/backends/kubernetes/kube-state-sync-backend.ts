/**
 * StateSync on Kubernetes (state-sync/state-sync-backend.ts): the target is the Deployments of
 * the StateSync's namespace with the target's labels. Each pass renders the settings into a
 * ConfigMap (and a Secret for an inline Redis URL), patches the target Deployments with the env
 * and the settings-hash annotation — a changed hash is a rollout — then reads each target pod's
 * statesync `status()` over its admin port (GET /v1/stats). A deleted StateSync takes its env and
 * annotation back off.
 */
import { PatchStrategy } from '@kubernetes/client-node';
import type { StateSync } from '@orrery/spec';
import type { ResourceStore } from '@orrery/store';
import { readReplica } from '../../state-sync/read-replica.ts';
import type { StateSyncBackend, StateSyncTarget, WriteSyncStatus } from '../../state-sync/state-sync-backend.ts';
import { StateSyncReconciler } from '../../state-sync/state-sync-reconciler.ts';
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

export class KubeStateSyncBackend implements StateSyncBackend {
  private readonly log: Log;

  constructor(
    private readonly client: KubeClient,
    private readonly o: KubernetesStateSyncsOptions = {},
  ) {
    this.log = o.log ?? (() => {});
  }

  target(ss: StateSync): StateSyncTarget {
    const selector = selectorString(targetSelector(ss));
    return { key: `${ss.metadata.namespace}|${selector}`, describe: selector };
  }

  private async deployments(ss: StateSync): Promise<DeploymentView[]> {
    return (await this.client.list<DeploymentView>('apps/v1', 'Deployment', ss.metadata.namespace, selectorString(targetSelector(ss)))).items;
  }

  private async applyAs(obj: object, manager: string): Promise<void> {
    await this.client.objects.patch(structuredClone(obj) as KubeObject, undefined, undefined, manager, true, PatchStrategy.ServerSideApply);
  }

  async sync(ss: StateSync, write: WriteSyncStatus): Promise<void> {
    const rendered = renderKubeSyncSettings(ss);
    if (!rendered.ok) return write({ renderError: rendered });
    const { settings, hash } = rendered;
    await this.client.apply(renderSettingsConfigMap(ss, settings));
    const secret = renderUrlSecret(ss, settings);
    if (secret) await this.client.apply(secret);

    const deployments = await this.deployments(ss);
    const selector = selectorString(targetSelector(ss));
    if (deployments.length === 0) return write({ renderError: { reason: 'NoTarget', message: `no Deployment labelled ${selector} in ${ss.metadata.namespace}` } });
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
    await write({
      rollingOut: rolling.length ? `rolling out settings ${hash} to ${rolling.join(', ')}` : undefined,
      notes: unknown.length ? [`not registered by the router (ignored): ${unknown.join(', ')}`] : [],
      reports,
    });
  }

  /** Takes a deleted StateSync's env and annotation off the Deployments it configured. */
  async release(ss: StateSync): Promise<void> {
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
export async function startKubernetesStateSyncs(client: KubeClient, store: ResourceStore, opts: KubernetesStateSyncsOptions = {}): Promise<StateSyncReconciler> {
  const r = new StateSyncReconciler({ store, backend: new KubeStateSyncBackend(client, opts), intervalMs: opts.intervalMs, log: opts.log });
  await r.start();
  return r;
}
