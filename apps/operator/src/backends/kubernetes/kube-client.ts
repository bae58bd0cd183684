import {
  ApiException,
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  type KubernetesObject,
  KubernetesObjectApi,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { API_GROUP, API_VERSION, backoffDelay } from '@orrery/spec';
import { resourceFor } from './api-resources.ts';
import { FIELD_MANAGER } from './render/labels.ts';
import { withThrottleRetry } from './throttle-retry.ts';
import { describeConflicts, fieldConflicts, takeoverEvent } from './field-conflicts.ts';
import { EventRecorder, eventTarget } from '../../events/event-recorder.ts';
import { KubeEventSink } from './kube-event-sink.ts';

/** A Kubernetes object as plain JSON (what the operator reads and writes). */
export interface KubeObject extends KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: NonNullable<KubernetesObject['metadata']> & { name: string; namespace?: string };
  [field: string]: unknown;
}

export interface KubeConfigOptions {
  server: string;
  token?: string;
  /** Plain http:// (`kubectl proxy`) needs this, or client-node refuses to connect. */
  skipTLSVerify?: boolean;
}

/** A KubeConfig for one API server (in-cluster deployments use `loadFromCluster` instead). */
export function kubeConfigFor(o: KubeConfigOptions): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'orrery', server: o.server, skipTLSVerify: o.skipTLSVerify ?? o.server.startsWith('http://') }],
    users: [{ name: 'orrery', token: o.token ?? 'unused' }],
    contexts: [{ name: 'orrery', cluster: 'orrery', user: 'orrery' }],
    currentContext: 'orrery',
  });
  return kc;
}

/**
 * An answer as plain JSON, as a watch event delivers it: client-node's typed models turn
 * timestamps into Date objects, which the zod schemas (and a later write) would not take.
 */
const plain = <T>(obj: T): T => JSON.parse(JSON.stringify(obj)) as T;

export const statusCode = (err: unknown): number | undefined =>
  err instanceof ApiException ? err.code : (err as { statusCode?: number; code?: unknown } | undefined)?.statusCode;

const isNotFound = (err: unknown) => statusCode(err) === 404;
const isConflict = (err: unknown) => statusCode(err) === 409;

/** What an apply does with fields another field manager owns (see KubeClient.apply). */
export type ConflictMode = 'take-over' | 'refuse' | 'force';

export interface ConflictRetryOptions {
  attempts?: number;
  /** Called before each retry (tests count them). */
  onRetry?: (attempt: number) => void;
}

/**
 * Thin typed edge over @kubernetes/client-node: every write is a server-side apply with the
 * operator's field manager, except read-modify-write updates (finalizers, Leases) that rely on
 * resourceVersion and retry on 409. Every call is repeated after a 429 (API priority and
 * fairness, or a restarting API server), honouring Retry-After, as client-go does.
 */
export class KubeClient {
  readonly objects: KubernetesObjectApi;
  private readonly custom: CustomObjectsApi;
  private readonly apps: AppsV1Api;
  private readonly core: CoreV1Api;
  private recorder?: EventRecorder;

  constructor(
    readonly config: KubeConfig,
    private readonly o: { log?: (msg: string) => void } = {},
  ) {
    this.objects = KubernetesObjectApi.makeApiClient(config);
    this.custom = config.makeApiClient(CustomObjectsApi);
    this.apps = config.makeApiClient(AppsV1Api);
    this.core = config.makeApiClient(CoreV1Api);
  }

  /**
   * The Events recorder over this client (one per client, so it outlives leader terms and its
   * deduplication and rate limits hold across them): takeovers, reconcilers and RegistryClusters.
   */
  get events(): EventRecorder {
    this.recorder ??= new EventRecorder(new KubeEventSink(this), { log: this.o.log });
    return this.recorder;
  }

  /**
   * Server-side apply as `orrery-operator`. client-node's `patch` defaults to strategic merge,
   * which custom resources refuse, so the apply content type is passed explicitly.
   *
   * Fields another manager owns (kubectl, a GitOps controller, a mesh injector):
   * - `take-over` (default, for the children Orrery renders: it must own what it renders): the
   *   apply is tried without force; on a conflict it is repeated with force and the takeover is
   *   reported (log line and a Warning Event on the object), never silent. Fields Orrery does
   *   not render (a sidecar, an extra env var) are never touched either way.
   * - `refuse` (objects users own, e.g. a Function applied through the store): the 409 with its
   *   conflicting fields goes back to the caller.
   * - `force`: take them without a word (the caller asked explicitly).
   */
  async apply<T extends KubeObject>(obj: T, opts: { conflicts?: ConflictMode } = {}): Promise<T> {
    const mode = opts.conflicts ?? 'take-over';
    const send = async (force: boolean) =>
      plain(await withThrottleRetry(() => this.objects.patch<T>(structuredClone(obj), undefined, undefined, FIELD_MANAGER, force, PatchStrategy.ServerSideApply)));
    if (mode === 'force') return send(true);
    try {
      return await send(false);
    } catch (err) {
      const conflicts = fieldConflicts(err);
      if (mode === 'refuse' || conflicts.length === 0) throw err;
      const out = await send(true);
      this.o.log?.(`took back from other field managers on ${obj.kind} ${obj.metadata.namespace ?? ''}/${obj.metadata.name}: ${describeConflicts(conflicts)}`);
      this.events.record(eventTarget(out.apiVersion, out.kind, out), takeoverEvent(out, conflicts));
      return out;
    }
  }

  /**
   * Status through the status subresource (a server-side apply of `status` only). With
   * `resourceVersion` the write is conditional: a newer stored object makes it a 409.
   * `fieldManager` (default the operator's): a part of the status another writer owns (trigger
   * status, trigger/trigger-status-store.ts), which the operator's own apply must not remove.
   */
  async applyStatus(kind: string, namespace: string, name: string, status: unknown, opts: { resourceVersion?: string; fieldManager?: string } = {}): Promise<KubeObject> {
    const r = resourceFor(`${API_GROUP}/${API_VERSION}`, kind);
    const metadata = { name, namespace, ...(opts.resourceVersion ? { resourceVersion: opts.resourceVersion } : {}) };
    return plain(await withThrottleRetry(() => this.custom.patchNamespacedCustomObjectStatus(
      {
        group: API_GROUP,
        version: API_VERSION,
        namespace,
        plural: r.plural,
        name,
        body: { apiVersion: r.apiVersion, kind, metadata, status },
        fieldManager: opts.fieldManager ?? FIELD_MANAGER,
        force: true,
      },
      setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
    ))) as KubeObject;
  }

  /** Replicas through the scale subresource, so the Deployment's own spec stays the renderer's. */
  async scaleDeployment(namespace: string, name: string, replicas: number): Promise<void> {
    await withThrottleRetry(() =>
      this.apps.patchNamespacedDeploymentScale(
        { namespace, name, body: { spec: { replicas } }, fieldManager: FIELD_MANAGER },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      ),
    );
  }

  /** The last `tailLines` lines of a container's log (pods/log; the API server asks the node's kubelet). */
  async podLog(namespace: string, name: string, container: string, tailLines: number): Promise<string> {
    return withThrottleRetry(() => this.core.readNamespacedPodLog({ namespace, name, container, tailLines }));
  }

  async get<T extends KubeObject>(apiVersion: string, kind: string, namespace: string, name: string): Promise<T | undefined> {
    try {
      return plain(await withThrottleRetry(() => this.objects.read<T>({ apiVersion, kind, metadata: { name, namespace } })));
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async list<T extends KubeObject>(apiVersion: string, kind: string, namespace?: string, labelSelector?: string, fieldSelector?: string): Promise<{ items: T[]; resourceVersion: string }> {
    const res = await withThrottleRetry(() => this.objects.list(apiVersion, kind, namespace, undefined, undefined, undefined, fieldSelector, labelSelector));
    return { items: plain(res.items) as T[], resourceVersion: res.metadata?.resourceVersion ?? '' };
  }

  /** JSON merge patch (RFC 7386) of the fields in `obj` (Events' count and lastTimestamp). */
  async mergePatch<T extends KubeObject>(obj: T): Promise<T> {
    return plain(await withThrottleRetry(() => this.objects.patch<T>(structuredClone(obj), undefined, undefined, FIELD_MANAGER, undefined, PatchStrategy.MergePatch)));
  }

  async create<T extends KubeObject>(obj: T): Promise<T> {
    return plain(await withThrottleRetry(() => this.objects.create<T>(obj, undefined, undefined, FIELD_MANAGER)));
  }

  /** Replace guarded by `metadata.resourceVersion`: a concurrent writer makes this a 409. */
  async replace<T extends KubeObject>(obj: T): Promise<T> {
    return plain(await withThrottleRetry(() => this.objects.replace<T>(obj, undefined, undefined, FIELD_MANAGER)));
  }

  /**
   * Returns false when the object was already gone. With `resourceVersion` the deletion is
   * conditional (DeleteOptions preconditions): a newer stored object makes it a 409.
   */
  async delete(apiVersion: string, kind: string, namespace: string, name: string, opts: { resourceVersion?: string } = {}): Promise<boolean> {
    const body = opts.resourceVersion ? { preconditions: { resourceVersion: opts.resourceVersion } } : undefined;
    try {
      await withThrottleRetry(() => this.objects.delete({ apiVersion, kind, metadata: { name, namespace } }, undefined, undefined, undefined, undefined, 'Background', body));
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  /**
   * Read-modify-write with optimistic concurrency: re-read and retry on 409. `mutate` returns
   * undefined when nothing needs to change. Resolves to the stored object (undefined if gone).
   */
  async update<T extends KubeObject>(
    apiVersion: string,
    kind: string,
    namespace: string,
    name: string,
    mutate: (obj: T) => T | undefined,
    opts: ConflictRetryOptions = {},
  ): Promise<T | undefined> {
    const attempts = opts.attempts ?? 5;
    for (let attempt = 1; ; attempt++) {
      const cur = await this.get<T>(apiVersion, kind, namespace, name);
      if (!cur) return undefined;
      const next = mutate(structuredClone(cur));
      if (!next) return cur;
      try {
        return await this.replace(next);
      } catch (err) {
        if (!isConflict(err) || attempt >= attempts) throw err;
        opts.onRetry?.(attempt);
        // Full jitter: replicas that lost the same race do not retry in step.
        await new Promise((r) => setTimeout(r, backoffDelay(attempt - 1, { initialMs: 40, maxMs: 1000 }) * Math.random()));
      }
    }
  }
}

export { isConflict, isNotFound };
