/**
 * `helm install orrery charts/orrery` with no values (issue 19), rendered by the real helm: the
 * operator generates every credential and the webhook certificate and creates the
 * RegistryCluster; the chart renders no Secret and no `lookup`; components read credentials from
 * Secrets the operator makes (their pods wait for them); the trial Postgres and Redis are marked
 * not for production. helm-install-defaults.kube.test.ts installs the same on the test cluster.
 */
import { describe, expect, it } from 'vitest';
import { chartTemplates } from './chart-files.ts';
import { helmNotes, helmTemplate, type K8sObject } from './helm-template.ts';

const defaults = helmTemplate().objects;
const named = (objs: K8sObject[], kind: string, name: string) => objs.find((o) => o.kind === kind && o.metadata.name === name);
const podOf = (objs: K8sObject[], kind: string, name: string) => named(objs, kind, name)!.spec.template.spec;
const operatorArgs = (objs: K8sObject[]) => podOf(objs, 'Deployment', 'orrery-operator').containers[0].args as string[];
type Volume = { name: string; secret?: { secretName: string; items?: Array<{ key: string }> } };
type EnvVar = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } } };

describe('the chart with no values', { timeout: 60_000 }, () => {
  it('renders the whole platform: operator, router, statesvc, console, and the trial Postgres and Redis', () => {
    const workloads = defaults.filter((o) => ['Deployment', 'StatefulSet'].includes(o.kind)).map((o) => `${o.kind}/${o.metadata.name}`).sort();
    expect(workloads).toEqual(['Deployment/orrery-console', 'Deployment/orrery-operator', 'Deployment/orrery-redis', 'Deployment/orrery-router', 'Deployment/orrery-statesvc', 'StatefulSet/orrery-postgres']);
  });

  it('renders no Secret and no template uses helm lookup (which re-rolls under helm template / Argo CD)', () => {
    expect(defaults.filter((o) => o.kind === 'Secret')).toEqual([]);
    for (const t of chartTemplates()) expect(t.text, t.name).not.toMatch(/\blookup\b|\brandAlphaNum\b|\bgenPrivateKey\b|\bgenCA\b/);
  });

  it('has the operator generate the store token, admin token, both master keys and the Postgres and Redis passwords, by Secret name only', () => {
    const args = operatorArgs(defaults);
    expect(args).toEqual(
      expect.arrayContaining([
        '--store-token-secret=orrery-store-token/token',
        '--admin-token-secret=orrery-admin-token/token',
        '--master-key-secret=orrery-state-master-key/master-key',
        '--registry-master-key-secret=orrery-registry-master-key/registry-master-key',
        '--generate-secret=orrery-postgres-password/password',
        '--database-password-secret=orrery-postgres-password/password',
        '--generate-secret=orrery-redis-password/password',
      ]),
    );
    // Its own pod mounts none of them: it makes them, so it must not wait for them.
    const volumes = (podOf(defaults, 'Deployment', 'orrery-operator').volumes as Volume[]).filter((v) => v.secret).map((v) => v.secret!.secretName);
    expect(volumes).toEqual([]);
    const env = podOf(defaults, 'Deployment', 'orrery-operator').containers[0].env as EnvVar[];
    expect(env.find((e) => e.name === 'DATABASE_URL')).toEqual({ name: 'DATABASE_URL', value: 'postgres://orrery@orrery-postgres.orrery-system.svc:5432/orrery' });
    expect(env.filter((e) => e.valueFrom?.secretKeyRef)).toEqual([]);
  });

  it('routers and statesvc read the generated Secrets (required: their pods wait until the operator made them)', () => {
    for (const name of ['orrery-router', 'orrery-statesvc']) {
      const pod = podOf(defaults, 'Deployment', name);
      expect(pod.containers[0].args).toContain('--store-token-file=/etc/orrery/store-token/token');
      const store = (pod.volumes as Volume[]).find((v) => v.name === 'store-token')!;
      expect(store.secret).toMatchObject({ secretName: 'orrery-store-token', items: [{ key: 'token', path: 'token' }] });
      expect(store.secret).not.toHaveProperty('optional');
    }
    const statesvc = podOf(defaults, 'Deployment', 'orrery-statesvc');
    expect((statesvc.volumes as Volume[]).find((v) => v.name === 'state-key')!.secret!.secretName).toBe('orrery-state-master-key');
    const statesvcEnv = statesvc.containers[0].env as EnvVar[];
    expect(statesvcEnv).toEqual(
      expect.arrayContaining([
        { name: 'POSTGRES_PASSWORD', valueFrom: { secretKeyRef: { name: 'orrery-postgres-password', key: 'password' } } },
        { name: 'DATABASE_URL', value: 'postgres://orrery:$(POSTGRES_PASSWORD)@orrery-postgres.orrery-system.svc:5432/orrery' },
      ]),
    );
    // The kubelet expands $(VAR) only from variables defined before.
    expect(statesvcEnv.findIndex((e) => e.name === 'POSTGRES_PASSWORD')).toBeLessThan(statesvcEnv.findIndex((e) => e.name === 'DATABASE_URL'));
  });

  it('lets the operator make and rotate the webhook certificate: no caBundle, no mounted TLS Secret, RBAC to update only its own configurations', () => {
    expect(operatorArgs(defaults)).toEqual(expect.arrayContaining(['--webhook-port=9443', '--webhook-cert-secret=orrery-webhook-tls', '--webhook-service=orrery-webhook', '--webhook-configuration=orrery-webhook']));
    expect(operatorArgs(defaults).filter((a) => a.startsWith('--webhook-cert-file'))).toEqual([]);
    for (const kind of ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']) {
      const cfg = named(defaults, kind, 'orrery-webhook')!;
      expect(cfg.webhooks[0].clientConfig).not.toHaveProperty('caBundle');
      expect(cfg.webhooks[0].clientConfig.service).toMatchObject({ name: 'orrery-webhook', namespace: 'orrery-system' });
    }
    const rule = named(defaults, 'ClusterRole', 'orrery-operator')!.rules.find((r: { apiGroups: string[] }) => r.apiGroups.includes('admissionregistration.k8s.io'));
    expect(rule).toEqual({ apiGroups: ['admissionregistration.k8s.io'], resources: ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations'], resourceNames: ['orrery-webhook'], verbs: ['get', 'update'] });
    // A caBundle left in values from an older install is not rendered: helm would undo the operator's on every upgrade.
    const stale = helmTemplate({ webhook: { tls: { caBundle: 'T0xE' } } }).objects;
    expect(named(stale, 'ValidatingWebhookConfiguration', 'orrery-webhook')!.webhooks[0].clientConfig).not.toHaveProperty('caBundle');
    // With the user's own Secret, or cert-manager, the operator neither makes certificates nor may touch the configurations.
    for (const values of [{ webhook: { tls: { secretName: 'mine', caBundle: 'Q0E=' } } }, { webhook: { certManager: { enabled: true, issuerRef: { name: 'ca' } } } }]) {
      const objs = helmTemplate(values).objects;
      expect(operatorArgs(objs)).toContain('--webhook-cert-file=/etc/orrery/webhook-tls/tls.crt');
      expect(operatorArgs(objs).filter((a) => a.startsWith('--webhook-cert-secret'))).toEqual([]);
      expect(named(objs, 'ClusterRole', 'orrery-operator')!.rules.some((r: { apiGroups: string[] }) => r.apiGroups.includes('admissionregistration.k8s.io'))).toBe(false);
    }
  });

  it('gives functions a URL without router.publicUrl: the router Service in the cluster', () => {
    expect(operatorArgs(defaults)).toContain('--router-url=http://orrery-router.orrery-system.svc');
    expect(operatorArgs(helmTemplate({ router: { service: { port: 8081 } } }).objects)).toContain('--router-url=http://orrery-router.orrery-system.svc:8081');
    expect(operatorArgs(helmTemplate({ router: { publicUrl: 'https://fn.example.com' } }).objects)).toContain('--router-url=https://fn.example.com');
  });

  it('finds the registry without registry.url: the default RegistryCluster’s Service and generated replication token', () => {
    expect(operatorArgs(defaults)).toEqual(expect.arrayContaining(['--registry-url=http://orrery-registry.orrery-system.svc:8080', '--default-registry-cluster=orrery', '--default-registry-cluster-spec={"registry":{"replicas":2},"replicas":3,"storage":{"size":"1Gi"}}']));
    const router = podOf(defaults, 'Deployment', 'orrery-router').containers[0];
    expect(router.args).toContain('--registry-url=http://orrery-registry.orrery-system.svc:8080');
    // The generated replication token, as a file of the Secret the operator makes for the RegistryCluster.
    expect(router.args).toContain('--registry-token-file=/etc/orrery/registry-token/token');
    const tokenVolume = (podOf(defaults, 'Deployment', 'orrery-router').volumes as Volume[]).find((v) => v.name === 'registry-token')!;
    expect(tokenVolume.secret).toMatchObject({ secretName: 'orrery-registry-tokens', items: [{ key: 'replication-token', path: 'token' }] });
    expect(tokenVolume.secret).not.toHaveProperty('optional');
    expect((router.env as EnvVar[]).map((e) => e.name)).not.toContain('ORRERY_REGISTRY_TOKEN');
    // Whatever routerTokenKey says, the generated Secret's key is replication-token.
    const keyed = podOf(helmTemplate({ registry: { tokens: { routerTokenKey: 'other' } } }).objects, 'Deployment', 'orrery-router');
    expect((keyed.volumes as Volume[]).find((v) => v.name === 'registry-token')!.secret!.items).toEqual([{ key: 'replication-token', path: 'token' }]);
    // A registry.url of one's own turns the default cluster off.
    const own = helmTemplate({ registry: { url: 'http://elsewhere:8080' } }).objects;
    expect(operatorArgs(own)).toContain('--registry-url=http://elsewhere:8080');
    expect(operatorArgs(own).filter((a) => a.includes('default-registry-cluster'))).toEqual([]);
    expect(operatorArgs(helmTemplate({ registry: { cluster: { name: 'reg' } } }).objects)).toContain('--registry-url=http://reg-registry.orrery-system.svc:8080');
  });

  it('runs the trial Postgres as a hardened StatefulSet on a PVC of the default StorageClass, its password from the generated Secret', () => {
    const sts = named(defaults, 'StatefulSet', 'orrery-postgres')!;
    const c = sts.spec.template.spec.containers[0];
    expect(c.image).toBe('postgres:17');
    expect(c.securityContext).toMatchObject({ runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
    expect(c.env).toContainEqual({ name: 'POSTGRES_PASSWORD', valueFrom: { secretKeyRef: { name: 'orrery-postgres-password', key: 'password' } } });
    expect(sts.spec.volumeClaimTemplates[0].spec).toEqual({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } });
    expect(sts.spec.template.spec.automountServiceAccountToken).toBe(false);
    expect(named(defaults, 'Deployment', 'orrery-redis')!.spec.template.spec.containers[0].image).toBe('redis:7');
    const np = named(defaults, 'NetworkPolicy', 'orrery-postgres')!;
    expect(np.spec.ingress[0].from.map((f: { podSelector: { matchLabels: Record<string, string> } }) => f.podSelector.matchLabels['app.kubernetes.io/component'])).toEqual(['operator', 'statesvc']);
    expect(named(defaults, 'NetworkPolicy', 'orrery-redis')!.spec.ingress[0].from[0].podSelector.matchLabels['app.kubernetes.io/component']).toBe('router');
    // External databases replace them.
    const external = helmTemplate({ postgres: { existingSecret: 'pg' }, redis: { existingSecret: 'r' } }).objects;
    expect(external.filter((o) => /postgres|redis/.test(o.metadata.name) && o.kind !== 'NetworkPolicy')).toEqual([]);
    expect(operatorArgs(external).filter((a) => a.includes('postgres-password'))).toEqual([]);
    expect(() => helmTemplate({ postgres: { inCluster: { enabled: false } } })).toThrow(/postgres\.existingSecret is required when postgres\.inCluster\.enabled is false/);
  });

  it('runs the trial Redis with the generated password from a mounted file, never on a command line or in its environment; the routers get it through their Redis URL', () => {
    const pod = podOf(defaults, 'Deployment', 'orrery-redis');
    const c = pod.containers[0];
    const commandLine = [...(c.command ?? []), ...(c.args ?? [])] as string[];
    // The shell reads the file into redis-server's configuration on stdin ("-").
    expect(commandLine.join('\n')).toMatch(/exec redis-server - <<EOF\nrequirepass \$\(cat \/etc\/redis-auth\/password\)\n/);
    expect(commandLine.join(' ')).not.toMatch(/--requirepass|[0-9a-f]{32}/);
    expect(c.env ?? []).toEqual([]);
    expect(c.volumeMounts).toContainEqual({ name: 'auth', mountPath: '/etc/redis-auth', readOnly: true });
    const auth = (pod.volumes as Volume[]).find((v) => v.name === 'auth')!;
    expect(auth.secret).toEqual({ secretName: 'orrery-redis-password', defaultMode: 0o440, items: [{ key: 'password', path: 'password' }] });
    // The routers: the kubelet expands the password from a secretKeyRef into ORRERY_REDIS_URL (defined before it).
    const routerEnv = podOf(defaults, 'Deployment', 'orrery-router').containers[0].env as EnvVar[];
    expect(routerEnv).toEqual(
      expect.arrayContaining([
        { name: 'REDIS_PASSWORD', valueFrom: { secretKeyRef: { name: 'orrery-redis-password', key: 'password' } } },
        { name: 'ORRERY_REDIS_URL', value: 'redis://:$(REDIS_PASSWORD)@orrery-redis.orrery-system.svc:6379/0' },
      ]),
    );
    expect(routerEnv.findIndex((e) => e.name === 'REDIS_PASSWORD')).toBeLessThan(routerEnv.findIndex((e) => e.name === 'ORRERY_REDIS_URL'));
    // An external Redis: its URL Secret as before, nothing generated.
    const external = helmTemplate({ redis: { existingSecret: 'r' } }).objects;
    expect(operatorArgs(external).filter((a) => a.includes('redis-password'))).toEqual([]);
    expect(podOf(external, 'Deployment', 'orrery-router').containers[0].env).toContainEqual({ name: 'ORRERY_REDIS_URL', valueFrom: { secretKeyRef: { name: 'r', key: 'url' } } });
    expect((podOf(external, 'Deployment', 'orrery-router').containers[0].env as EnvVar[]).map((e) => e.name)).not.toContain('REDIS_PASSWORD');
  });

  it('marks the trial databases NOT FOR PRODUCTION in values.yaml, the templates and NOTES.txt; NOTES tell where the admin token is', () => {
    const notes = helmNotes({});
    expect(notes).toContain('WARNING: NOT FOR PRODUCTION');
    expect(notes).toContain('orrery-store-token, orrery-admin-token, orrery-state-master-key, orrery-registry-master-key, orrery-postgres-password, orrery-redis-password\n');
    expect(notes).toContain("kubectl -n orrery-system get secret orrery-admin-token -o jsonpath='{.data.token}' | base64 -d");
    expect(notes).toContain('RegistryCluster "orrery"');
    expect(helmNotes({ postgres: { existingSecret: 'pg' }, redis: { existingSecret: 'r' } })).not.toContain('NOT FOR PRODUCTION');
    for (const t of chartTemplates().filter((x) => /-in-cluster\.yaml$/.test(x.name))) expect(t.text, t.name).toContain('NOT FOR PRODUCTION');
  });

  it('global.imageRegistry works with and without a trailing slash', () => {
    for (const registry of ['registry.example.com', 'registry.example.com/']) {
      const objs = helmTemplate({ global: { imageRegistry: registry } }).objects;
      const images = objs.filter((o) => o.spec?.template?.spec).flatMap((o) => o.spec.template.spec.containers.map((c: { image: string }) => c.image));
      expect(images.every((i: string) => i.startsWith('registry.example.com/') && !i.includes('//')), images.join(' ')).toBe(true);
      expect(operatorArgs(objs)).toContain('--runtime-image=registry.example.com/orrery/runtime:0.1.0');
    }
  });

  it('serviceAccount.name uses an existing ServiceAccount for a component (not created; RBAC binds it)', () => {
    const objs = helmTemplate({ serviceAccount: { name: { operator: 'platform-operator' } } }).objects;
    expect(podOf(objs, 'Deployment', 'orrery-operator').serviceAccountName).toBe('platform-operator');
    expect(objs.filter((o) => o.kind === 'ServiceAccount').map((o) => o.metadata.name).sort()).toEqual(['orrery-console', 'orrery-router', 'orrery-statesvc']);
    expect(named(objs, 'ClusterRoleBinding', 'orrery-operator')!.subjects).toEqual([{ kind: 'ServiceAccount', name: 'platform-operator', namespace: 'orrery-system' }]);
    expect(podOf(objs, 'Deployment', 'orrery-router').serviceAccountName).toBe('orrery-router');
  });

  it('metrics.serviceMonitor.enabled renders ServiceMonitors for the operator, statesvc and the router’s admin port', () => {
    expect(defaults.filter((o) => o.kind === 'ServiceMonitor')).toEqual([]);
    const objs = helmTemplate({ metrics: { serviceMonitor: { enabled: true, labels: { release: 'prom' } } } }).objects;
    const monitors = objs.filter((o) => o.kind === 'ServiceMonitor');
    expect(monitors.map((m) => [m.metadata.name, m.spec.endpoints[0].port, m.spec.endpoints[0].path])).toEqual([
      ['orrery-operator', 'http', '/metrics'],
      ['orrery-statesvc', 'http', '/metrics'],
      ['orrery-router', 'admin', '/metrics'],
    ]);
    for (const m of monitors) {
      expect(m.metadata.labels?.release).toBe('prom');
      // Each selects a Service that has the port it names.
      const services = objs.filter((o) => o.kind === 'Service' && Object.entries(m.spec.selector.matchLabels as Record<string, string>).every(([k, v]) => o.metadata.labels?.[k] === v));
      expect(services.some((s) => s.spec.ports.some((p: { name: string }) => p.name === m.spec.endpoints[0].port)), m.metadata.name).toBe(true);
    }
  });
});
