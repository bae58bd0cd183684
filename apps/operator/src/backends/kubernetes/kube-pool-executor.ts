import { randomBytes } from 'node:crypto';
import { deriveSpecializeNonce } from '@orrery/auth';
import type { Environment, Revision, StateCredentials } from '@orrery/spec';
import { FUNCTION_LABEL } from '@orrery/spec';
import { postJson } from '@orrery/control-http';
import { type PoolPackages, packageSource } from '../../pool-executor/package-source.ts';
import { type PoolSpecializer, type Specialization, SpecializeError } from '../../pool-executor/specialization.ts';
import { objectKey, splitKey } from '../../queue/object-key.ts';
import { specializeRequest } from '../../pool-executor/specialize-request.ts';
import type { RegistrationCredentials } from '../../reconcile/registration-credential.ts';
import { MissingSecretError, resolveTemplateEnv } from '../../env/template-env.ts';
import { Informer } from './informer.ts';
import { type KubeClient, type KubeObject, isConflict, isNotFound, statusCode } from './kube-client.ts';
import { COMPONENT_LABEL, ENVIRONMENT_LABEL, REVISION_LABEL, ownerReferences } from './render/labels.ts';
import { SPECIALIZE_TOKEN_KEY, renderSpecializeSecret, specializeSecretName } from './render/pool.ts';
import { RUNTIME_PORT } from './render/revision-children.ts';
import { PACKAGE_VOLUME_CLAIM } from './package-build/package-build-names.ts';

/** A pool pod's component label once claimed: it has left the pool Deployment's selector. */
export const SPECIALIZED_COMPONENT = 'specialized';
/** When the executor claimed the pod (newest go first when the KPA scales down). */
export const CLAIMED_AT_ANNOTATION = 'orrery.dev/claimed-at';

export interface KubernetesPoolExecutorOptions {
  client: KubeClient;
  /** Watch pool pods of one namespace; all namespaces when absent. */
  namespace?: string;
  /** Specialized pods without traffic (specialize calls, `touch`) this long are deleted. */
  idleTimeoutMs: number;
  /** Where a pod's runtime is reached; default `<status.podIP>:8080`. Tests map it to a local port. */
  podAddress?: (pod: KubeObject) => string;
  /** How long a cold request waits for a warm pod when none is ready (default 30 s). */
  readyWaitMs?: number;
  /** Timeout of one `POST /v1/specialize` (default 60 s: the worker may fetch a URL source). */
  specializeTimeoutMs?: number;
  /** Specialized pods changed (claimed, deleted). Routers learn addresses from the registry; this is for metrics. */
  onChange?: () => void;
  /** The revision's registration credential, sent in the specialize body (never in a pod spec). */
  registrationCredential?: RegistrationCredentials;
  /**
   * Package builds (docs/packages.md): a revision with a package is specialized, once built, with
   * its folder in the package volume, on a pool pod that mounts it (render/pool.ts).
   */
  packages?: PoolPackages;
  log?: (msg: string) => void;
}

type Pod = KubeObject & {
  spec?: unknown;
  status?: { phase?: string; podIP?: string; conditions?: Array<{ type: string; status: string }> };
};

/** The pod mounts the namespace's package volume (pool pods created before the volume existed do not). */
const mountsPackages = (p: Pod): boolean =>
  ((p.spec as { volumes?: Array<{ persistentVolumeClaim?: { claimName?: string } }> } | undefined)?.volumes ?? []).some((v) => v.persistentVolumeClaim?.claimName === PACKAGE_VOLUME_CLAIM);

const isReady = (p: Pod): boolean =>
  !p.metadata.deletionTimestamp && p.status?.phase === 'Running' && !!p.status.podIP && p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

const defaultPodAddress = (p: KubeObject): string => {
  const ip = (p as Pod).status?.podIP ?? '';
  return `${ip.includes(':') ? `[${ip}]` : ip}:${RUNTIME_PORT}`;
};

/** Attempts on other pods after a pod-level failure (unreachable, refused token); a load error is final. */
const MAX_POD_ATTEMPTS = 3;
const WARM_POLL_MS = 20;

/**
 * Fission's poolmgr on Kubernetes. Each Environment has a pool Deployment of generic
 * `orrery-runtime --mode pool` pods (render/pool.ts). A cold revision claims a ready pod by
 * replacing its labels, guarded by its resourceVersion (a 409 means another claim won: take
 * another pod): the pod leaves the Deployment's selector, so its ReplicaSet starts a new one and
 * the pool refills itself, and it carries the revision's labels and owner. Then the executor
 * sends `POST /v1/specialize` with the code and state credentials and the pod's single-use
 * specialize nonce, HMAC(the Environment's pool key, namespace + pod uid): the pod itself holds
 * only the nonce's hash (written by its init container, which alone mounts the key). The specialized runtime registers in the registry under its revision
 * (`--registry-url`), which is how routers find it. Concurrent cold requests for one revision
 * share one specialization; specialized pods idle past the timeout are deleted.
 *
 * The same method shape as the local LocalPoolExecutor (backends/local/local-pool-executor.ts), as far as the specialize HTTP handler and the
 * KPA use it: `specialize`, `scale`, `readySpecialized`, `touch`, `release`.
 */
export class KubernetesPoolExecutor implements PoolSpecializer {
  readonly pods: Informer<Pod>;
  /** Count of specialize calls made to pods (one per cold revision, however many requests). */
  specializations = 0;
  /** Claims that lost to a concurrent writer (409) and moved to another pod. */
  claimConflicts = 0;
  private readonly pending = new Map<string, Promise<Specialization>>();
  private readonly scalingUp = new Map<string, number>();
  /** Pods being claimed by this executor right now (not candidates for another claim). */
  private readonly claiming = new Set<string>();
  /**
   * Claimed pods whose specialize call is in flight: they already carry the revision's labels
   * (and pass the pool's readiness probe) but cannot serve it yet.
   */
  private readonly specializing = new Set<string>();
  /** Last traffic per specialized pod (`namespace/name`). */
  private readonly lastUsed = new Map<string, number>();
  private readonly tokens = new Map<string, string>();
  private reaper?: NodeJS.Timeout;
  private stopped = false;
  private readonly log: (msg: string) => void;
  private readonly podAddress: (pod: KubeObject) => string;

  constructor(private readonly o: KubernetesPoolExecutorOptions) {
    this.log = o.log ?? (() => {});
    this.podAddress = o.podAddress ?? defaultPodAddress;
    // Pool pods and the pods claimed from them both carry the Environment label; deploy-executor pods do not.
    this.pods = new Informer<Pod>(o.client, { apiVersion: 'v1', kind: 'Pod', namespace: o.namespace, labelSelector: ENVIRONMENT_LABEL, log: this.log });
  }

  async start(): Promise<void> {
    this.stopped = false;
    this.pods.start();
    await this.pods.hasSynced();
    const every = Math.max(250, Math.min(10_000, this.o.idleTimeoutMs / 4));
    this.reaper = setInterval(() => void this.reapIdle().catch((err: unknown) => this.log(`reaping idle pods: ${(err as Error).message}`)), every);
    this.reaper.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.reaper);
    this.pods.stop();
    // Specialized pods keep serving: a new leader adopts them (labels say which revision they run).
    await Promise.allSettled([...this.pending.values()]);
  }

  /**
   * The Environment's pool key, creating its Secret with a random key when missing. Created (not
   * applied) and never rewritten, so the key stays stable across reconciles and running pool pods
   * (whose init containers derived their verifiers from it) keep accepting the executor.
   */
  async ensureSpecializeSecret(env: Environment): Promise<string> {
    const ns = env.metadata.namespace;
    // Read fresh (one GET per Environment reconcile): a recreated Secret must not hide behind the cache.
    const existing = await this.readToken(ns, env.metadata.name, true);
    if (existing) return existing;
    try {
      await this.o.client.create(renderSpecializeSecret(env, randomBytes(32).toString('base64url')));
      this.log(`created specialize token secret ${ns}/${specializeSecretName(env.metadata.name)}`);
    } catch (err) {
      if (statusCode(err) !== 409) throw err; // AlreadyExists: another writer won, read theirs
    }
    const token = await this.readToken(ns, env.metadata.name, true);
    if (!token) throw new Error(`specialize token secret ${ns}/${specializeSecretName(env.metadata.name)} has no "${SPECIALIZE_TOKEN_KEY}"`);
    return token;
  }

  /** Address of a pod serving the revision, specializing a warm one if none does. */
  async specialize(rev: Revision, credentials?: StateCredentials): Promise<Specialization> {
    const key = revKey(rev);
    const live = this.servingPods(key)[0];
    if (live) {
      this.lastUsed.set(podKey(live), Date.now());
      return { address: this.podAddress(live) };
    }
    let p = this.pending.get(key);
    if (!p) {
      p = this.doSpecialize(rev, credentials).finally(() => this.pending.delete(key));
      this.pending.set(key, p);
    }
    return p;
  }

  /**
   * The KPA's desired scale for a pooled revision: specialize more pods while desired exceeds
   * those serving it (or being specialized for it), delete the newest extras when it falls. At
   * zero nothing happens: the last pod goes through the idle reaper, as on the local backend.
   */
  scale(rev: Revision, desired: number, credentials?: StateCredentials): void {
    if (this.stopped) return;
    const key = revKey(rev);
    const serving = this.specializedPods(key);
    if (!serving.length || desired < 1) return;
    const starting = this.scalingUp.get(key) ?? 0;
    for (let i = serving.length + starting; i < desired; i++) {
      this.scalingUp.set(key, (this.scalingUp.get(key) ?? 0) + 1);
      void this.doSpecialize(rev, credentials)
        .catch((err: unknown) => this.log(`scaling ${key} up: ${(err as Error).message}`))
        .finally(() => {
          const n = (this.scalingUp.get(key) ?? 1) - 1;
          if (n > 0) this.scalingUp.set(key, n);
          else this.scalingUp.delete(key);
        });
    }
    if (desired < serving.length && !starting) {
      const newestFirst = [...serving].sort((a, b) => claimedAt(b) - claimedAt(a));
      const extra = newestFirst.slice(0, serving.length - desired);
      this.log(`scaling ${key} down to ${desired} specialized pod(s)`);
      void this.deletePods(extra, 'scale down');
    }
  }

  /** Specialized pods of a revision (`namespace/revision`) that are ready (the KPA's `ready`). */
  readySpecialized(key: string): number {
    return this.servingPods(key).length;
  }

  /** Traffic seen for a revision (router stats): postpones reaping. */
  touch(key: string): void {
    for (const p of this.specializedPods(key)) this.lastUsed.set(podKey(p), Date.now());
  }

  /** The revision is gone or no longer routable: delete its specialized pods. */
  async release(key: string): Promise<void> {
    await this.deletePods(this.specializedPods(key), 'released');
  }

  /** Ready, unclaimed pool pods per `namespace/environment`. */
  warmCounts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const p of this.pods.list()) {
      if (p.metadata.labels?.[COMPONENT_LABEL] !== 'pool' || !isReady(p)) continue;
      const k = `${p.metadata.namespace}/${p.metadata.labels[ENVIRONMENT_LABEL]}`;
      out[k] = (out[k] ?? 0) + 1;
    }
    return out;
  }

  specializedCount(key: string): number {
    return this.specializedPods(key).length;
  }

  /** Specialized, ready and done loading: safe to send the revision's requests to. */
  private servingPods(key: string): Pod[] {
    return this.specializedPods(key).filter((p) => isReady(p) && !this.specializing.has(podKey(p)));
  }

  private specializedPods(key: string): Pod[] {
    const [ns, rev] = splitKey(key);
    return this.pods
      .list()
      .filter((p) => p.metadata.namespace === ns && p.metadata.labels?.[COMPONENT_LABEL] === SPECIALIZED_COMPONENT && p.metadata.labels[REVISION_LABEL] === rev && !p.metadata.deletionTimestamp);
  }

  private async doSpecialize(rev: Revision, credentials?: StateCredentials): Promise<Specialization> {
    const t = rev.spec.template;
    const ns = rev.metadata.namespace;
    // Built first: a revision whose package cannot load yet must not cost a warm pod.
    const pkg = packageSource(rev, this.o.packages);
    // A pool pod's spec is the Environment's: the revision's env (its secrets read through the
    // API, never written into any object) travels in the specialize body only.
    const env = await resolveTemplateEnv(ns, t.env, (namespace, name, key) => this.secretValue(namespace, name, key), (m) => `create the Secret ${ns}/${m.secret} with key ${m.key}, or mark the reference optional`).catch((err: unknown) => {
      if (err instanceof MissingSecretError) throw new SpecializeError(422, 'secret_not_found', err.message);
      throw err;
    });
    const body = specializeRequest(rev, pkg ?? (await this.sourceOf(rev)), credentials, this.o.registrationCredential?.(rev), env);
    let lastError: SpecializeError | undefined;
    for (let attempt = 1; attempt <= MAX_POD_ATTEMPTS; attempt++) {
      if (this.stopped) throw new SpecializeError(503, 'shutting_down', 'the pool executor is stopping');
      // The key before the claim: without it a claimed pod would be stranded.
      const poolKey = await this.readToken(ns, t.environment);
      if (!poolKey) throw new SpecializeError(503, 'pool_not_ready', `pool key secret ${ns}/${specializeSecretName(t.environment)} does not exist yet`);
      const pod = await this.claim(rev, pkg !== undefined);
      this.specializing.add(podKey(pod));
      try {
        if (!pod.metadata.uid) throw new RetryOnAnotherPod(new SpecializeError(502, 'specialize_failed', `pool pod ${pod.metadata.name} has no uid`));
        // This pod's nonce alone: it cannot specialize any other pod, and the pod uses it up.
        return await this.specializeClaimed(pod, rev, body, deriveSpecializeNonce(poolKey, ns, pod.metadata.uid));
      } catch (err) {
        if (!(err instanceof RetryOnAnotherPod)) throw err;
        lastError = err.cause;
      } finally {
        this.specializing.delete(podKey(pod));
      }
    }
    throw lastError!;
  }

  /** Sends the claimed pod its code; a pod-level failure deletes the pod and asks for another. */
  private async specializeClaimed(pod: Pod, rev: Revision, body: unknown, nonce: string): Promise<Specialization> {
    const address = this.podAddress(pod);
    this.specializations++;
    const sent = performance.now();
    let res: { status: number; body: Record<string, unknown> };
    try {
      res = await postJson(`http://${address}/v1/specialize`, body, { timeoutMs: this.o.specializeTimeoutMs ?? 60_000, headers: { authorization: `Bearer ${nonce}` } });
    } catch (err) {
      await this.deletePods([pod], 'unreachable');
      throw new RetryOnAnotherPod(new SpecializeError(502, 'specialize_failed', `pool pod ${pod.metadata.name} (${address}) did not answer specialize: ${(err as Error).message}`));
    }
    const answer = res.body as { error?: string; code?: string; loadMs?: number };
    if (res.status === 200) {
      this.lastUsed.set(podKey(pod), Date.now());
      this.o.onChange?.();
      return { address, timing: { workerMs: Math.round(performance.now() - sent), loadMs: answer.loadMs } };
    }
    // Whatever went wrong, the pod may hold half-loaded module state: never reuse it.
    await this.deletePods([pod], `specialize answered ${res.status}`);
    if (res.status === 401 || res.status === 409) {
      // 401: the pod's verifier came from another key (the Secret was recreated): read it again,
      // use another pod. 409: its nonce was used already (someone got there first): another pod.
      if (res.status === 401) this.tokens.delete(`${rev.metadata.namespace}/${rev.spec.template.environment}`);
      throw new RetryOnAnotherPod(new SpecializeError(502, res.status === 401 ? 'specialize_unauthorized' : 'specialize_nonce_used', `pool pod ${pod.metadata.name} refused the specialize nonce (${answer.code ?? res.status})`));
    }
    throw new SpecializeError(res.status === 422 ? 422 : 502, answer.code ?? 'specialize_failed', answer.error ?? `specialize answered ${res.status}`);
  }

  /**
   * Takes a ready pool pod for the revision: a replace guarded by the pod's resourceVersion that
   * moves it out of the pool Deployment's selector and gives it the revision's labels and owner.
   */
  private async claim(rev: Revision, needsPackages: boolean): Promise<Pod> {
    const ns = rev.metadata.namespace;
    const env = rev.spec.template.environment;
    const end = Date.now() + (this.o.readyWaitMs ?? 30_000);
    const lost = new Set<string>();
    for (;;) {
      const candidate = this.pods
        .list()
        .find(
          (p) =>
            p.metadata.namespace === ns &&
            p.metadata.labels?.[ENVIRONMENT_LABEL] === env &&
            p.metadata.labels[COMPONENT_LABEL] === 'pool' &&
            isReady(p) &&
            (!needsPackages || mountsPackages(p)) &&
            !this.claiming.has(podKey(p)) &&
            !lost.has(`${podKey(p)}@${p.metadata.resourceVersion}`),
        );
      if (!candidate) {
        if (this.stopped) throw new SpecializeError(503, 'shutting_down', 'the pool executor is stopping');
        const what = needsPackages ? `warm pod of environment ${ns}/${env} mounting the package volume ${PACKAGE_VOLUME_CLAIM}` : `warm pod of environment ${ns}/${env}`;
        if (Date.now() > end) throw new SpecializeError(503, 'pool_empty', `no ${what} became ready within ${Math.round((this.o.readyWaitMs ?? 30_000) / 1000)}s`);
        await new Promise((r) => setTimeout(r, WARM_POLL_MS));
        continue;
      }
      const k = podKey(candidate);
      this.claiming.add(k);
      try {
        const next = structuredClone(candidate);
        next.metadata.labels = {
          ...next.metadata.labels,
          [COMPONENT_LABEL]: SPECIALIZED_COMPONENT,
          [FUNCTION_LABEL]: rev.spec.function,
          [REVISION_LABEL]: rev.metadata.name,
        };
        next.metadata.annotations = { ...next.metadata.annotations, [CLAIMED_AT_ANNOTATION]: new Date().toISOString() };
        // Owned by the revision from now on (deleted with it); no longer by the pool's ReplicaSet.
        next.metadata.ownerReferences = ownerReferences({ kind: 'Revision', metadata: rev.metadata }) ?? [];
        delete next.metadata.managedFields;
        const claimed = await this.o.client.replace<Pod>(next);
        this.log(`claimed pool pod ${k} for ${ns}/${rev.metadata.name}`);
        return claimed;
      } catch (err) {
        if (isConflict(err) || isNotFound(err)) {
          // Someone else took (or deleted) it since our cache saw it: pick another pod.
          this.claimConflicts++;
          lost.add(`${k}@${candidate.metadata.resourceVersion}`);
          continue;
        }
        throw err;
      } finally {
        this.claiming.delete(k);
      }
    }
  }

  /** The code to send: inline as is, a configMapRef read through the API, a URL for the worker to fetch. */
  private async sourceOf(rev: Revision): Promise<{ inline?: string; url?: string }> {
    const src = rev.spec.template.source;
    if (src.inline !== undefined) return { inline: src.inline };
    if (src.url) return { url: src.url };
    if (src.configMapRef) {
      const cm = await this.o.client.get<KubeObject & { data?: Record<string, string> }>('v1', 'ConfigMap', rev.metadata.namespace, src.configMapRef.name);
      const code = cm?.data?.[src.configMapRef.key];
      if (code === undefined) throw new SpecializeError(422, 'source_not_found', `configmap ${rev.metadata.namespace}/${src.configMapRef.name} has no key ${src.configMapRef.key}`);
      return { inline: code };
    }
    throw new SpecializeError(422, 'source_not_found', `revision ${rev.metadata.name} has no source`);
  }

  /** One key of a Secret in the function's namespace (read fresh: values may change between specializations). */
  private async secretValue(namespace: string, name: string, key: string): Promise<string | undefined> {
    const secret = await this.o.client.get<KubeObject & { data?: Record<string, string> }>('v1', 'Secret', namespace, name);
    const data = secret?.data?.[key];
    return data === undefined ? undefined : Buffer.from(data, 'base64').toString('utf8');
  }

  private async readToken(namespace: string, environment: string, fresh = false): Promise<string | undefined> {
    const k = `${namespace}/${environment}`;
    if (!fresh && this.tokens.has(k)) return this.tokens.get(k);
    const secret = await this.o.client.get<KubeObject & { data?: Record<string, string>; stringData?: Record<string, string> }>('v1', 'Secret', namespace, specializeSecretName(environment));
    const data = secret?.data?.[SPECIALIZE_TOKEN_KEY];
    const token = data !== undefined ? Buffer.from(data, 'base64').toString('utf8') : undefined;
    if (token) this.tokens.set(k, token);
    return token;
  }

  private async deletePods(pods: Pod[], why: string): Promise<void> {
    if (!pods.length) return;
    await Promise.all(
      pods.map(async (p) => {
        this.lastUsed.delete(podKey(p));
        this.log(`deleting pod ${podKey(p)} (${why})`);
        await this.o.client.delete('v1', 'Pod', p.metadata.namespace!, p.metadata.name).catch((err: unknown) => this.log(`deleting pod ${podKey(p)}: ${(err as Error).message}`));
      }),
    );
    this.o.onChange?.();
  }

  private async reapIdle(): Promise<void> {
    if (this.stopped) return;
    const now = Date.now();
    const idle: Pod[] = [];
    for (const p of this.pods.list()) {
      if (p.metadata.labels?.[COMPONENT_LABEL] !== SPECIALIZED_COMPONENT || p.metadata.deletionTimestamp) continue;
      const k = podKey(p);
      // A pod claimed by an earlier leader: its idle time counts from when this one first saw it.
      if (!this.lastUsed.has(k)) this.lastUsed.set(k, now);
      if (now - this.lastUsed.get(k)! > this.o.idleTimeoutMs) idle.push(p);
    }
    for (const k of this.lastUsed.keys()) if (!this.pods.cache.has(k)) this.lastUsed.delete(k);
    if (idle.length) await this.deletePods(idle, `idle for more than ${Math.round(this.o.idleTimeoutMs / 1000)}s`);
  }
}

/** A failure of one pod (not of the revision's code): the caller claims another. */
class RetryOnAnotherPod extends Error {
  constructor(override readonly cause: SpecializeError) {
    super(cause.message);
  }
}

const revKey = (rev: Revision): string => objectKey(rev.metadata.namespace, rev.metadata.name);
const podKey = (p: KubeObject): string => `${p.metadata.namespace ?? ''}/${p.metadata.name}`;
const claimedAt = (p: KubeObject): number => Date.parse(p.metadata.annotations?.[CLAIMED_AT_ANNOTATION] ?? '') || 0;
