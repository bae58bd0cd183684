import { RegistryClusterSchema } from '@orrery/spec';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import {
  etcdConfigFile,
  etcdFlags,
  etcdMemberConfig,
  renderEtcdPdb,
  renderEtcdService,
  renderEtcdStatefulSet,
  renderMembersConfigMap,
  renderRegistryDeployment,
  renderRegistryPdb,
  renderRegistryService,
  renderTokensSecret,
} from './registry-cluster.ts';

const rc = RegistryClusterSchema.parse({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'RegistryCluster',
  metadata: { namespace: 'infra', name: 'reg', uid: 'u-1' },
  spec: { replicas: 3, storage: { size: '5Gi', storageClassName: 'fast' } },
});
const peer = (k: number) => `reg-${k}=http://reg-${k}.reg-etcd.infra.svc:2380`;
const bootstrap = [1, 2, 3].map(peer).join(',');
type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('RegistryCluster renderers', () => {
  it('gives each bootstrap ordinal its own name and URLs and the same new cluster', () => {
    const flags = [1, 2, 3].map((ordinal) => etcdFlags(etcdMemberConfig({ rc, ordinal, initialCluster: bootstrap, state: 'new' })));
    expect(flags[1]).toEqual(
      expect.arrayContaining([
        '--name=reg-2',
        '--advertise-client-urls=http://reg-2.reg-etcd.infra.svc:2379',
        '--initial-advertise-peer-urls=http://reg-2.reg-etcd.infra.svc:2380',
        '--listen-peer-urls=http://0.0.0.0:2380',
        `--initial-cluster=${bootstrap}`,
        '--initial-cluster-state=new',
        '--initial-cluster-token=orrery-infra-reg-u-1',
        '--data-dir=/var/lib/etcd/data',
      ]),
    );
    expect(new Set(flags.map((f) => f.find((x) => x.startsWith('--name='))))).toHaveProperty('size', 3);
  });

  it('lets a learner join the existing cluster with the member list MemberAdd returned', () => {
    const fromMemberAdd = [1, 2, 3, 4].map(peer).join(',');
    const file = etcdConfigFile(etcdMemberConfig({ rc, ordinal: 4, initialCluster: fromMemberAdd, state: 'existing' }));
    const parsed = parseYaml(file) as Record<string, unknown>;
    expect(parsed).toMatchObject({ name: 'reg-4', 'initial-cluster-state': 'existing', 'initial-cluster': fromMemberAdd });
    const cm = renderMembersConfigMap(rc, [{ name: 'reg-4', ordinal: 4 }], { 'reg-4': file });
    expect((cm.data as Any)['reg-4.yaml']).toBe(file);
  });

  it('runs each pod with its own config file from the members ConfigMap, ordinals from 1, in parallel', () => {
    const sts = renderEtcdStatefulSet(rc) as Any;
    expect(sts.spec.replicas).toBeUndefined();
    expect(sts.spec).toMatchObject({ serviceName: 'reg-etcd', podManagementPolicy: 'Parallel', ordinals: { start: 1 } });
    const c = sts.spec.template.spec.containers[0];
    expect(c.image).toBe('quay.io/coreos/etcd:v3.7.3');
    expect(c.args).toEqual(['--config-file=/etc/orrery-etcd/$(POD_NAME).yaml']);
    expect(c.env[0]).toEqual({ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } });
    expect(sts.spec.template.spec.volumes[0]).toEqual({ name: 'config', configMap: { name: 'reg-etcd-members' } });
    expect(sts.spec.volumeClaimTemplates[0].spec).toEqual({ accessModes: ['ReadWriteOnce'], storageClassName: 'fast', resources: { requests: { storage: '5Gi' } } });
    expect(renderEtcdStatefulSet(rc, { etcdImage: 'mirror/etcd:v3.5.9' }).spec).toHaveProperty('template.spec.containers.0.image', 'mirror/etcd:v3.5.9');
  });

  it('runs every container non-root with a read-only root filesystem', () => {
    for (const m of [renderEtcdStatefulSet(rc), renderRegistryDeployment(rc, { etcdEndpoints: ['http://a:2379'] })] as Any[]) {
      expect(m.spec.template.spec.securityContext).toMatchObject({ runAsNonRoot: true, fsGroup: 65532 });
      for (const c of m.spec.template.spec.containers) {
        expect(c.securityContext).toEqual({ runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
      }
    }
  });

  it('owns every object by the RegistryCluster and allows one disruption at a time', () => {
    const all = [
      renderEtcdStatefulSet(rc),
      renderEtcdService(rc),
      renderEtcdPdb(rc),
      renderMembersConfigMap(rc, [], {}),
      renderTokensSecret(rc, { adminToken: 'a', replicationToken: 'r', prometheusSdToken: 'p' }),
      renderRegistryDeployment(rc, { etcdEndpoints: [] }),
      renderRegistryService(rc),
      renderRegistryPdb(rc),
    ];
    for (const m of all) {
      expect(m.metadata.ownerReferences).toEqual([{ apiVersion: 'orrery.dev/v1alpha1', kind: 'RegistryCluster', name: 'reg', uid: 'u-1', controller: true, blockOwnerDeletion: true }]);
      expect(m.metadata.namespace).toBe('infra');
    }
    expect((renderEtcdPdb(rc) as Any).spec).toEqual({ maxUnavailable: 1, selector: { matchLabels: { 'orrery.dev/registry-cluster': 'reg', 'orrery.dev/component': 'etcd' } } });
    expect((renderEtcdService(rc) as Any).spec).toMatchObject({ clusterIP: 'None', publishNotReadyAddresses: true });
  });

  it('points the registry at the voters, keeps admin on loopback and tokens out of argv', () => {
    const d = renderRegistryDeployment(
      { ...rc, spec: { ...rc.spec, registry: { ...rc.spec.registry, adminTokenSecretRef: { name: 'mine', key: 'tok' } } } },
      { etcdEndpoints: ['http://b:2379', 'http://a:2379'], registryImage: 'orrery/registry:1.2' },
    ) as Any;
    const c = d.spec.template.spec.containers[0];
    expect(c.image).toBe('orrery/registry:1.2');
    expect(c.args).toContain('--etcd-endpoints=http://a:2379,http://b:2379');
    expect(c.args).toContain('--admin-addr=127.0.0.1:8081');
    expect(c.args.join(' ')).not.toMatch(/token/);
    expect(c.env).toContainEqual({ name: 'ORRERY_REGISTRY_ADMIN_TOKEN', valueFrom: { secretKeyRef: { name: 'mine', key: 'tok' } } });
    expect(c.env).toContainEqual({ name: 'ORRERY_REGISTRY_REPLICATION_TOKEN', valueFrom: { secretKeyRef: { name: 'reg-registry-tokens', key: 'replication-token' } } });
    expect(d.spec.replicas).toBe(2);
    const svc = renderRegistryService(rc) as Any;
    expect(svc.spec.type).toBe('ClusterIP');
    expect(svc.spec.ports).toEqual([{ name: 'http', port: 8080, targetPort: 'http', protocol: 'TCP' }]);
  });
});
