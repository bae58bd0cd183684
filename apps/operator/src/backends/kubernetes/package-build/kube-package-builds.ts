/**
 * Package builds on Kubernetes (docs/kubernetes-backend.md "Packages"): for every Function whose
 * template — or one of whose Revisions — names `source.package`, the namespace's package volume
 * and one build Job per build key; the Job's outcome goes to `status.build` under this writer's own
 * field manager (the Function reconciler's apply never names the field, so neither removes the
 * other's), and gates the revisions: no workers until their package is built.
 *
 * Content-addressed: the Job is named by the key (archive sha256 + builder), so a second Function
 * with the same archive finds the first one's Job — running or done — and builds nothing. A
 * finished Job's outcome is recorded on the Job (build-outcome.ts), since its pod may be
 * garbage-collected. A failed build is not retried: a new archive (or builder) is a new key;
 * deleting the Job builds the same key again.
 */
import { buildKey } from '@orrery/builder';
import { type BuildStatus, EnvironmentSchema, type Environment, FUNCTION_LABEL, FunctionSchema, type FunctionTemplate, type OrreryFunction, type Revision, RevisionSchema } from '@orrery/spec';
import { isDeepStrictEqual } from 'node:util';
import { kindQueue } from '../../../queue/kind-queue.ts';
import { objectKey, splitKey } from '../../../queue/object-key.ts';
import type { WorkQueue } from '../../../queue/work-queue.ts';
import { buildGate } from '../../../package/build-gate.ts';
import type { ReadyOverride } from '../../../revision/revision-backend.ts';
import { apiErrorText } from '../api-error-text.ts';
import { Informer } from '../informer.ts';
import { type KubeClient, type KubeObject, isConflict, statusCode } from '../kube-client.ts';
import { parsed } from '../parsed-object.ts';
import { COMPONENT_LABEL, FIELD_MANAGER } from '../render/labels.ts';
import { runtimeImageFor } from '../render/runtime-image.ts';
import { type ArchiveRecheck, archiveCheckDue, archiveMissed } from './archive-recheck-backoff.ts';
import { renderBuildJob } from './build-job.ts';
import { type BuildIdentity, type BuildPodView, type TerminatedView, buildOutcome, recordedBody } from './build-outcome.ts';
import { packageBuilderFor } from './package-builder-choice.ts';
import { poolPackageDir } from './package-mount.ts';
import { BUILD_RESULT_ANNOTATION, COMPONENT_BUILD, PACKAGE_ARCHIVE_KEY, PACKAGE_VOLUME_CLAIM, buildJobName, packageConfigMapName } from './package-build-names.ts';
import { type PackageVolumeSettings, renderPackageVolumeClaim } from './package-volume.ts';

/** The field manager of `status.build` (the reconciler's is `orrery-operator`, the triggers' their own). */
export const BUILD_FIELD_MANAGER = 'orrery-package-build';
/** The chart's builder image when none is given (`--builder-image`). */
export const DEFAULT_BUILDER_IMAGE = 'orrery/builder:latest';

export interface PackageBuildSettings {
  builderImage: string;
  volume: PackageVolumeSettings;
  /** The builder's timeout (orrery-build --timeout-seconds); the Job's deadline adds a minute. */
  timeoutSeconds: number;
}

export interface KubePackageBuildsOptions extends PackageBuildSettings {
  client: KubeClient;
  namespace?: string;
  functions: Informer;
  revisions: Informer;
  environments: Informer;
  /** `--runtime-image`: what workers run when their Environment names no image. */
  runtimeImage?: string;
  /** A build's state changed: the Function's and its revisions' reconcilers look again. */
  changed: (namespace: string, fn: string) => void;
  /** The namespace's package volume exists (first seen by this process): its pool Deployments mount it now. */
  volumeSeen?: (namespace: string) => void;
  log?: (msg: string) => void;
  now?: () => Date;
}

type Template = FunctionTemplate;
/** What a template's build is, or why it has none. */
type Planned = { id: BuildIdentity; pkg: NonNullable<Template['source']['package']> } | { refused: ReadyOverride };

export class KubePackageBuilds {
  readonly jobs: Informer;
  readonly queue: WorkQueue;
  private readonly log: (msg: string) => void;
  /** Namespace → the package volume claim's uid, once seen. */
  private readonly volumes = new Map<string, string>();
  /**
   * `namespace/function` → archive sha256 → when to look for the missing archive again
   * (archive-recheck-backoff.ts). No ConfigMap informer: it would hold every archive's bytes.
   */
  private readonly archiveRechecks = new Map<string, Map<string, ArchiveRecheck>>();
  private readonly now: () => Date;

  constructor(private readonly o: KubePackageBuildsOptions) {
    this.log = o.log ?? (() => {});
    this.now = o.now ?? (() => new Date());
    this.jobs = new Informer(o.client, {
      apiVersion: 'batch/v1',
      kind: 'Job',
      namespace: o.namespace,
      labelSelector: `app.kubernetes.io/managed-by=${FIELD_MANAGER},${COMPONENT_LABEL}=${COMPONENT_BUILD}`,
      log: this.log,
    });
    this.queue = kindQueue('PackageBuild', (key) => this.reconcile(key), {
      onError: (key, err, attempt) => this.log(`package build of Function ${key} failed (attempt ${attempt}): ${apiErrorText(err)}`),
      held: true,
    });
    o.functions.on((_t, f) => {
      if (f.metadata.namespace) this.queue.add(objectKey(f.metadata.namespace, f.metadata.name));
    });
    // A Job moved: every Function of its namespace that uses packages looks again (few, and cheap).
    this.jobs.on((_t, job) => {
      const ns = job.metadata.namespace;
      for (const f of o.functions.list()) {
        if (!ns || f.metadata.namespace !== ns || !usesPackages(f)) continue;
        this.queue.add(objectKey(ns, f.metadata.name));
        o.changed(ns, f.metadata.name);
      }
    });
  }

  start(): void {
    this.jobs.start();
  }

  async hasSynced(): Promise<void> {
    await this.jobs.hasSynced();
    this.queue.release();
  }

  stop(): void {
    this.jobs.stop();
    this.queue.stop();
  }

  /** The built package's key of a revision (undefined: no package, or it cannot be built). */
  keyOf(rev: Revision): string | undefined {
    const plan = this.plan(rev.metadata.namespace, rev.spec.template);
    return plan && 'id' in plan ? plan.id.key : undefined;
  }

  /** Why a revision may not run yet (undefined: no package, or it is built). From caches only. */
  gate(rev: Revision): ReadyOverride | undefined {
    const t = rev.spec.template;
    if (!t.source.package) return undefined;
    const plan = this.plan(rev.metadata.namespace, t);
    if (!plan) return undefined;
    if ('refused' in plan) return plan.refused;
    return buildGate(this.cachedOutcome(rev.metadata.namespace, plan.id));
  }

  /**
   * Where a pool pod finds the revision's built package once built (undefined: not built, or no
   * package): the package volume every pool pod of the namespace mounts (render/pool.ts).
   */
  poolPackage(rev: Revision): { dir: string; main?: string } | undefined {
    const t = rev.spec.template;
    const plan = this.plan(rev.metadata.namespace, t);
    if (!plan || 'refused' in plan || this.cachedOutcome(rev.metadata.namespace, plan.id)?.phase !== 'Succeeded') return undefined;
    return { dir: poolPackageDir(plan.id.key), ...(plan.pkg.main ? { main: plan.pkg.main } : {}) };
  }

  /** The gate of a Function's newest revision (what its Ready should say), by the revision's name. */
  gateOfRevision(namespace: string, name: string | undefined): ReadyOverride | undefined {
    const rev = name ? parsed<Revision>(RevisionSchema, this.o.revisions.get(namespace, name)) : undefined;
    return rev && this.gate(rev);
  }

  private plan(namespace: string, t: Template): Planned | undefined {
    const pkg = t.source.package;
    if (!pkg) return undefined;
    const env = parsed<Environment>(EnvironmentSchema, this.o.environments.get(namespace, t.environment));
    const platform = this.o.runtimeImage ?? 'orrery/runtime:latest';
    const image = runtimeImageFor(env, platform);
    const runtime = packageBuilderFor(image, platform);
    if (!runtime) {
      return { refused: { status: 'False', reason: 'PackageRuntimeUnknown', message: `no builder for worker image ${image}: packages build for the Node runtime (npm) and orrery/runtime-python (pip)` } };
    }
    // The builder image is part of the key: a new builder builds every package again.
    const builder = `${runtime} ${this.o.builderImage}`;
    return { id: { sha256: pkg.sha256, key: buildKey(pkg.sha256, builder), builder }, pkg };
  }

  private cachedOutcome(namespace: string, id: BuildIdentity): BuildStatus | undefined {
    const job = this.jobs.get(namespace, buildJobName(id.key));
    const o = buildOutcome(job, undefined, id);
    // A finished Job whose outcome is not recorded yet: the reconcile records it; until then, building.
    return job && o.final && !job.metadata.annotations?.[BUILD_RESULT_ANNOTATION] ? { ...o.status, phase: 'Building', reason: 'Building', message: 'reading the build\'s outcome' } : o.status;
  }

  /** One Function: ensure the builds of its template and live revisions, record finished ones, write status.build. */
  async reconcile(key: string): Promise<void> {
    const [namespace, name] = splitKey(key);
    const fn = parsed<OrreryFunction>(FunctionSchema, this.o.functions.get(namespace, name));
    if (!fn || fn.metadata.deletionTimestamp) {
      this.archiveRechecks.delete(key);
      return;
    }
    const rechecks = this.archiveRechecks.get(key) ?? new Map<string, ArchiveRecheck>();
    const missing = new Map<string, ArchiveRecheck>();
    const templates = [fn.spec.template, ...this.revisionsOf(namespace, name).map((r) => r.spec.template)];
    let current: BuildStatus | undefined;
    const seen = new Set<string>();
    for (const [i, t] of templates.entries()) {
      const plan = this.plan(namespace, t);
      if (!plan || 'refused' in plan || seen.has(plan.id.key)) continue;
      seen.add(plan.id.key);
      const status = await this.ensure(namespace, name, plan.id, plan.pkg, rechecks, fn.metadata.generation ?? 0);
      const recheck = rechecks.get(plan.id.sha256);
      if (status.reason === 'ArchiveMissing' && status.phase === 'Pending' && recheck) missing.set(plan.id.sha256, recheck);
      if (i === 0) current = status;
    }
    // Only the archives still missing keep a record: a found one, or one no template names, starts over.
    if (missing.size) this.archiveRechecks.set(key, missing);
    else this.archiveRechecks.delete(key);
    await this.writeStatus(fn, current);
    if (missing.size) {
      const next = Math.min(...[...missing.values()].map((r) => r.nextAtMs));
      this.queue.addAfter(key, Math.max(0, next - this.now().getTime()));
    }
  }

  private revisionsOf(namespace: string, fn: string): Revision[] {
    return this.o.revisions
      .list()
      .filter((r) => r.metadata.namespace === namespace && r.metadata.labels?.[FUNCTION_LABEL] === fn)
      .map((r) => parsed<Revision>(RevisionSchema, r))
      .filter((r): r is Revision => r !== undefined && r.spec.template.source.package !== undefined);
  }

  /** The build of one key: started if there is none, its outcome recorded once it finished. */
  private async ensure(namespace: string, fn: string, id: BuildIdentity, pkg: Plan['pkg'], rechecks: Map<string, ArchiveRecheck>, generation: number): Promise<BuildStatus> {
    const name = buildJobName(id.key);
    let job = this.jobs.get(namespace, name);
    if (!job) {
      if (!pkg.url) {
        const prev = rechecks.get(id.sha256);
        const nowMs = this.now().getTime();
        // Not due: the status of the last miss again, without a GET (this Function's own status
        // write, or another event, woke the reconcile); an unchanged status is not written again.
        const due = archiveCheckDue(prev, generation, nowMs);
        if (!due || !(await this.archiveStored(namespace, id.sha256))) {
          const recheck = !due && prev ? prev : archiveMissed(prev, generation, nowMs);
          rechecks.set(id.sha256, recheck);
          const again = new Date(recheck.nextAtMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
          return {
            ...id,
            phase: 'Pending',
            reason: 'ArchiveMissing',
            message: `no archive in the package store: ConfigMap ${packageConfigMapName(id.sha256)} with binaryData key ${PACKAGE_ARCHIVE_KEY} in namespace ${namespace} (orrery deploy --code DIR writes it); looked ${recheck.misses} time${recheck.misses === 1 ? '' : 's'}, looks again at ${again} or when the Function changes`,
          };
        }
        rechecks.delete(id.sha256);
      }
      const volumeUid = await this.ensureVolume(namespace);
      const manifest = renderBuildJob({ namespace, sha256: id.sha256, key: id.key, builder: id.builder.split(' ')[0] as 'node' | 'python', image: this.o.builderImage, main: pkg.main, url: pkg.url, timeoutSeconds: this.o.timeoutSeconds, requestedBy: fn, volumeUid });
      try {
        job = await this.o.client.create(manifest);
        this.log(`package ${id.sha256.slice(0, 12)} of Function ${namespace}/${fn}: build Job ${name} created`);
      } catch (err) {
        // Another Function's reconcile (or the previous leader) created it first: the same build.
        if (!isConflict(err)) throw err;
        job = await this.o.client.get('batch/v1', 'Job', namespace, name);
      }
    }
    const outcome = buildOutcome(job, undefined, id);
    if (!outcome.final || job?.metadata.annotations?.[BUILD_RESULT_ANNOTATION]) return outcome.status;
    const finished = buildOutcome(job, await this.podOf(namespace, name), id);
    await this.o.client.mergePatch({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name, namespace, annotations: { [BUILD_RESULT_ANNOTATION]: recordedBody(finished.status) } } });
    this.log(`package ${id.sha256.slice(0, 12)} in ${namespace}: build ${finished.status.phase} (${finished.status.reason})`);
    return finished.status;
  }

  private async archiveStored(namespace: string, sha256: string): Promise<boolean> {
    const cm = await this.o.client.get('v1', 'ConfigMap', namespace, packageConfigMapName(sha256));
    return Boolean((cm?.binaryData as Record<string, string> | undefined)?.[PACKAGE_ARCHIVE_KEY] ?? (cm?.data as Record<string, string> | undefined)?.[PACKAGE_ARCHIVE_KEY]);
  }

  /** The namespace's package volume, created when missing (never changed: its spec is the cluster's once bound). */
  private async ensureVolume(namespace: string): Promise<string | undefined> {
    const known = this.volumes.get(namespace);
    if (known) return known;
    let pvc = await this.o.client.get('v1', 'PersistentVolumeClaim', namespace, PACKAGE_VOLUME_CLAIM);
    if (!pvc) {
      try {
        pvc = await this.o.client.create(renderPackageVolumeClaim(namespace, this.o.volume));
        this.log(`package volume ${namespace}/${PACKAGE_VOLUME_CLAIM} created (${this.o.volume.size}${this.o.volume.storageClass ? `, storage class ${this.o.volume.storageClass}` : ''})`);
      } catch (err) {
        if (!isConflict(err)) throw err;
        pvc = await this.o.client.get('v1', 'PersistentVolumeClaim', namespace, PACKAGE_VOLUME_CLAIM);
      }
    }
    const uid = pvc?.metadata.uid;
    if (uid) {
      this.volumes.set(namespace, uid);
      this.o.volumeSeen?.(namespace);
    }
    return uid;
  }

  /** How the build pod's containers ended, and a longer log from pods/log when the message carries none. */
  private async podOf(namespace: string, job: string): Promise<BuildPodView | undefined> {
    const pods = (await this.o.client.list('v1', 'Pod', namespace, `job-name=${job}`)).items;
    const pod = pods.sort((a, b) => String(b.metadata.creationTimestamp).localeCompare(String(a.metadata.creationTimestamp)))[0];
    if (!pod) return undefined;
    type Cs = { name: string; state?: { terminated?: TerminatedView } };
    const st = (pod.status ?? {}) as { containerStatuses?: Cs[]; initContainerStatuses?: Cs[] };
    const view: BuildPodView = {
      build: st.containerStatuses?.find((c) => c.name === 'build')?.state?.terminated,
      fetch: st.initContainerStatuses?.find((c) => c.name === 'fetch')?.state?.terminated,
    };
    if (view.build && !/"log"\s*:\s*"[^"]/.test(view.build.message ?? '')) {
      try {
        view.log = await this.o.client.podLog(namespace, pod.metadata.name, 'build', 80);
      } catch (err) {
        this.log(`log of build pod ${namespace}/${pod.metadata.name}: ${apiErrorText(err)} (status.build keeps the termination message's)`);
      }
    }
    return view;
  }

  /** `status.build` alone, as BUILD_FIELD_MANAGER; an empty apply drops it when the template has no package. */
  private async writeStatus(fn: OrreryFunction, build: BuildStatus | undefined): Promise<void> {
    if (isDeepStrictEqual(fn.status?.build, build)) return;
    const { namespace, name } = fn.metadata;
    try {
      await this.o.client.applyStatus('Function', namespace, name, build ? { build } : {}, { fieldManager: BUILD_FIELD_MANAGER });
    } catch (err) {
      if (statusCode(err) === 404) return;
      throw err;
    }
  }
}

type Plan = Extract<Planned, { id: BuildIdentity }>;

function usesPackages(f: KubeObject): boolean {
  return Boolean((f.spec as { template?: { source?: { package?: unknown } } } | undefined)?.template?.source?.package);
}
