/**
 * RegistryClusters on Kubernetes: the placement the shared RegistryCluster reconciler drives.
 * Members are ordinals of a StatefulSet; their identities and etcd config files live in the
 * members ConfigMap (so a new operator leader picks up where the last one stopped). Starting a
 * member = writing its config (first time only) and raising the StatefulSet to its ordinal through
 * the scale subresource; forgetting one = dropping its config, lowering replicas when it was the
 * highest ordinal (else deleting the pod so it restarts empty) and deleting its PVC. Every object
 * is a server-side apply with field manager `orrery-operator` and owned by the RegistryCluster.
 * etcd itself (MemberAdd/Promote/Remove, status) is called by the reconciler over the members'
 * client URLs, which resolve through the headless Service from the operator's pod.
 */
import { randomBytes } from 'node:crypto';
import { AppsV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { RegistryCluster } from '@orrery/spec';
import type { ClusterPlacement, MemberRef, RegistryApi, RegistryClusterBackend, RegistryMembers } from '../../registry-cluster/registry-cluster-backend.ts';
import { isConflict, type KubeClient, type KubeObject } from './kube-client.ts';
import { FIELD_MANAGER, type Manifest } from './render/labels.ts';
import {
  CLUSTER_LABEL,
  MEMBERS_KEY,
  TOKEN_KEYS,
  clusterDnsAddressing,
  etcdConfigFile,
  etcdMemberConfig,
  manifestHash,
  memberClaimName,
  membersConfigMapName,
  type MemberAddressing,
  registryName,
  registryURL,
  renderEtcdPdb,
  renderEtcdService,
  renderEtcdStatefulSet,
  renderMembersConfigMap,
  renderRegistryAuthSecret,
  renderRegistryDeployment,
  type RegistryAuthMaterial,
  renderRegistryPdb,
  renderRegistryService,
  renderTokensSecret,
  tokensSecretName,
} from './render/registry-cluster.ts';

type Log = (msg: string, fields?: Record<string, unknown>) => void;

export interface KubeRegistryClusterBackendOptions {
  client: KubeClient;
  /** The `orrery-registry` image (the chart's `registry.image`). */
  registryImage?: string;
  /** Overrides `quay.io/coreos/etcd:v<spec.version>`. */
  etcdImage?: string;
  heartbeatMs?: number;
  electionMs?: number;
  /** Default: cluster DNS through the headless Service. */
  addressing?: MemberAddressing;
  /** false: no registry Deployment (membership only). */
  registryApi?: boolean;
  /** Write credentials every registry gets, copied into an auth Secret beside it. */
  auth?: RegistryAuthMaterial;
}

export class KubeRegistryClusterBackend implements RegistryClusterBackend {
  constructor(private readonly o: KubeRegistryClusterBackendOptions) {}

  open(rc: RegistryCluster, log: Log): ClusterPlacement {
    return new KubeClusterPlacement(this.o, rc, log);
  }
}

interface Identity {
  name: string;
  ordinal: number;
}

const STS = { apiVersion: 'apps/v1', kind: 'StatefulSet' } as const;

class KubeClusterPlacement implements ClusterPlacement, RegistryMembers {
  readonly members: RegistryMembers = this;
  readonly api?: RegistryApi & { url?: string };
  private ids: Identity[] = [];
  private configs: Record<string, string> = {};
  private phases = new Map<string, string>();
  private replicas?: number;
  private readonly applied = new Map<string, string>();
  private readonly apps: AppsV1Api;
  private readonly addressing: MemberAddressing;
  private registryReady = false;

  constructor(
    private readonly o: KubeRegistryClusterBackendOptions,
    private rc: RegistryCluster,
    private readonly log: Log,
  ) {
    this.apps = o.client.config.makeApiClient(AppsV1Api);
    this.addressing = o.addressing ?? clusterDnsAddressing;
    if (o.registryApi !== false) {
      this.api = {
        ensure: (voters) => this.ensureRegistry(voters),
        running: () => this.registryReady,
        url: undefined,
        stop: () => Promise.resolve(),
      };
    }
  }

  private get ns(): string {
    return this.rc.metadata.namespace;
  }

  /** Applies unless this process already applied the same content (the API server is level-triggered anyway). */
  private async apply(m: Manifest): Promise<void> {
    const key = `${m.kind}/${m.metadata.name}`;
    const hash = manifestHash(m);
    if (this.applied.get(key) === hash) return;
    await this.o.client.apply(m);
    this.applied.set(key, hash);
  }

  async refresh(rc: RegistryCluster): Promise<void> {
    this.rc = rc;
    const { client } = this.o;
    const cm = await client.get<KubeObject & { data?: Record<string, string> }>('v1', 'ConfigMap', this.ns, membersConfigMapName(rc));
    const data = cm?.data ?? {};
    this.ids = data[MEMBERS_KEY] ? (JSON.parse(data[MEMBERS_KEY]) as Identity[]) : [];
    this.configs = {};
    for (const id of this.ids) if (data[`${id.name}.yaml`]) this.configs[id.name] = data[`${id.name}.yaml`]!;
    // What the API server holds is the truth (a previous leader may have written it): the next
    // change re-applies the whole file set, even if this process applied the same content before.
    this.applied.delete(`ConfigMap/${membersConfigMapName(rc)}`);
    if (!cm) await this.writeMembers();
    await this.ensureTokens();
    await this.apply(renderEtcdService(rc));
    await this.apply(renderEtcdPdb(rc));
    await this.ensureStatefulSet(rc);
    if (this.api) {
      await this.apply(renderRegistryService(rc));
      await this.apply(renderRegistryPdb(rc));
    }
    const sts = await client.get<KubeObject & { spec?: { replicas?: number } }>(STS.apiVersion, STS.kind, this.ns, rc.metadata.name);
    this.replicas = sts?.spec?.replicas;
    const pods = await client.list<KubeObject & { status?: { phase?: string } }>('v1', 'Pod', this.ns, `${CLUSTER_LABEL}=${rc.metadata.name},orrery.dev/component=etcd`);
    this.phases = new Map(pods.items.filter((p) => !p.metadata.deletionTimestamp).map((p) => [p.metadata.name, p.status?.phase ?? 'Pending']));
    if (this.api) {
      const dep = await client.get<KubeObject & { status?: { readyReplicas?: number } }>('apps/v1', 'Deployment', this.ns, registryName(rc));
      this.registryReady = (dep?.status?.readyReplicas ?? 0) > 0;
      this.api.url = this.registryReady ? registryURL(rc) : undefined;
    }
  }

  /**
   * The StatefulSet is created at zero replicas (Kubernetes would default to one and start a
   * member before its config exists), then applied without `replicas`, which the scale
   * subresource owns from then on.
   */
  private async ensureStatefulSet(rc: RegistryCluster): Promise<void> {
    const sts = renderEtcdStatefulSet(rc, { etcdImage: this.o.etcdImage });
    if (!this.applied.has(`StatefulSet/${rc.metadata.name}`) && !(await this.o.client.get(STS.apiVersion, STS.kind, this.ns, rc.metadata.name))) {
      const spec = sts.spec as Record<string, unknown>;
      await this.o.client.create({ ...sts, spec: { ...spec, replicas: 0 } }).catch((err: unknown) => {
        if (!isConflict(err)) throw err; // another leader created it first
      });
    }
    await this.apply(sts);
  }

  private async writeMembers(): Promise<void> {
    await this.apply(renderMembersConfigMap(this.rc, this.ids, this.configs));
  }

  /** Generated once with `create` (never an apply that could replace them); spec secretRefs need none. */
  private async ensureTokens(): Promise<void> {
    const r = this.rc.spec.registry;
    if (!this.api || (r.adminTokenSecretRef && r.replicationTokenSecretRef && r.prometheusSdTokenSecretRef)) return;
    const name = tokensSecretName(this.rc);
    if (this.applied.has(`Secret/${name}`)) return;
    if (!(await this.o.client.get('v1', 'Secret', this.ns, name))) {
      const token = () => randomBytes(24).toString('base64url');
      try {
        await this.o.client.create(renderTokensSecret(this.rc, { adminToken: token(), replicationToken: token(), prometheusSdToken: token() }));
        this.log('registry tokens generated', { secret: name, keys: Object.values(TOKEN_KEYS) });
      } catch (err) {
        // Another writer created it first: theirs stands.
        if ((err as { code?: number }).code !== 409) throw err;
      }
    }
    this.applied.set(`Secret/${name}`, 'created');
  }

  private async ensureRegistry(voters: string[]): Promise<void> {
    // The Secret first: the pods mount it and would not start without it.
    const auth = renderRegistryAuthSecret(this.rc, this.o.auth);
    if (auth) await this.apply(auth);
    await this.apply(renderRegistryDeployment(this.rc, { registryImage: this.o.registryImage, etcdEndpoints: voters, auth: this.o.auth }));
  }

  private ref(id: Identity): MemberRef {
    const a = this.addressing(this.rc, id.ordinal);
    return { name: id.name, ordinal: id.ordinal, clientURL: a.clientURL, peerURL: a.peerURL };
  }

  list(): MemberRef[] {
    return [...this.ids].sort((a, b) => a.ordinal - b.ordinal).map((id) => this.ref(id));
  }

  get(name: string): MemberRef | undefined {
    const id = this.ids.find((x) => x.name === name);
    return id && this.ref(id);
  }

  isRunning(name: string): boolean {
    return this.phases.get(name) === 'Running';
  }

  hasData(name: string): boolean {
    return name in this.configs;
  }

  async create(name: string, ordinal: number): Promise<MemberRef> {
    this.ids = [...this.ids.filter((x) => x.name !== name), { name, ordinal }];
    await this.writeMembers();
    return this.ref({ name, ordinal });
  }

  async start(name: string, initialCluster: string, state: 'new' | 'existing'): Promise<void> {
    const id = this.ids.find((x) => x.name === name);
    if (!id) return;
    if (!this.configs[name]) {
      const config = etcdMemberConfig({
        rc: this.rc,
        ordinal: id.ordinal,
        initialCluster,
        state,
        heartbeatMs: this.o.heartbeatMs,
        electionMs: this.o.electionMs,
        addressing: this.addressing,
      });
      this.configs = { ...this.configs, [name]: etcdConfigFile(config) };
      await this.writeMembers();
      this.log('etcd member configured', { member: name, state });
    }
    await this.scaleTo(this.highestConfigured());
  }

  private highestConfigured(): number {
    return Math.max(0, ...this.ids.filter((x) => this.configs[x.name]).map((x) => x.ordinal));
  }

  private async scaleTo(replicas: number): Promise<void> {
    if (this.replicas === replicas) return;
    await this.apps.patchNamespacedStatefulSetScale(
      { namespace: this.ns, name: this.rc.metadata.name, body: { spec: { replicas } }, fieldManager: FIELD_MANAGER },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    this.log('etcd statefulset scaled', { from: this.replicas, to: replicas });
    this.replicas = replicas;
  }

  async forget(name: string): Promise<void> {
    const id = this.ids.find((x) => x.name === name);
    if (!id) return;
    this.ids = this.ids.filter((x) => x.name !== name);
    const { [name]: _dropped, ...rest } = this.configs;
    this.configs = rest;
    await this.writeMembers();
    const top = this.highestConfigured();
    if (id.ordinal > top) await this.scaleTo(top);
    // A lower ordinal keeps its pod slot: restart it so it comes back empty (it waits for its config).
    else await this.o.client.delete('v1', 'Pod', this.ns, name);
    // Its data must never bring it back as the removed member (the retention policy does the same).
    await this.o.client.delete('v1', 'PersistentVolumeClaim', this.ns, memberClaimName(name));
    this.phases.delete(name);
  }

  stopAll(): Promise<void> {
    // Pods outlive the operator: another leader takes them over.
    return Promise.resolve();
  }

  release(): Promise<void> {
    // Deletion is the garbage collector's (owner references); PVCs are retained by policy.
    return Promise.resolve();
  }
}
