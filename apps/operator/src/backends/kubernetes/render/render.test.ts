import { type Environment, type OrreryFunction, type Revision, parseResource } from '@orrery/spec';
import { describe, expect, it } from 'vitest';
import { FUNCTION_LABEL, type Manifest, childName, ownerReferences } from './labels.ts';
import { renderPoolChildren, renderPoolDeployment, renderSpecializeSecret, specializeSecretName } from './pool.ts';
import {
  DEFAULT_RUNTIME_IMAGE,
  renderCodeConfigMap,
  renderRevisionChildren,
  renderRevisionDeployment,
  renderRevisionService,
  renderServiceAccount,
  renderStateSecret,
} from './revision-children.ts';

function parse<T>(obj: unknown): T {
  const r = parseResource(obj);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.resource as T;
}

const fn = (extra: Record<string, unknown> = {}): OrreryFunction =>
  parse({
    apiVersion: 'orrery.dev/v1alpha1',
    kind: 'Function',
    metadata: { name: 'hello', namespace: 'team-a', uid: 'fn-uid' },
    spec: { template: { source: { inline: 'export default () => "hi"' } }, ...extra },
  });

const rev = (template: Record<string, unknown> = { source: { inline: 'export default () => "hi"' } }, uid = 'rev-uid'): Revision =>
  parse({
    apiVersion: 'orrery.dev/v1alpha1',
    kind: 'Revision',
    metadata: { name: 'hello-00001', namespace: 'team-a', uid, labels: { [FUNCTION_LABEL]: 'hello' } },
    spec: { function: 'hello', template },
  });

const env: Environment = parse({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Environment',
  metadata: { name: 'nodejs', namespace: 'team-a', uid: 'env-uid' },
  spec: { image: 'example/runtime:1', poolSize: 4, resources: { limits: { cpu: '500m' } } },
});

const state = { url: 'http://statesvc', namespace: 'team-a', keyspace: 'hello', token: 'secret-token' };

type Container = { image: string; args: string[]; env: Array<{ name: string; value?: string; valueFrom?: unknown }>; resources?: unknown; volumeMounts: Array<{ name: string; mountPath?: string }> };
const podSpec = (m: Manifest) =>
  (m.spec as { template: { spec: { containers: Container[]; volumes: Array<{ name: string; secret?: unknown; configMap?: unknown }>; serviceAccountName: string } } }).template.spec;

describe('labels', () => {
  it('owner references carry uid, controller and blockOwnerDeletion', () => {
    expect(ownerReferences({ kind: 'Revision', metadata: { name: 'r', uid: 'u' } })).toEqual([
      { apiVersion: 'orrery.dev/v1alpha1', kind: 'Revision', name: 'r', uid: 'u', controller: true, blockOwnerDeletion: true },
    ]);
    expect(ownerReferences({ kind: 'Revision', metadata: { name: 'r' } })).toBeUndefined();
  });
  it('child names stay DNS labels and stable', () => {
    expect(childName('a', 'b')).toBe('a-b');
    const long = childName('x'.repeat(60), 'deployment');
    expect(long.length).toBeLessThanOrEqual(63);
    expect(long).toBe(childName('x'.repeat(60), 'deployment'));
    expect(long).not.toBe(childName('x'.repeat(61), 'deployment'));
    expect(long).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
  });
});

describe('revision children', () => {
  it('deploy executor: ConfigMap, Deployment and Service owned by the revision', () => {
    const kids = renderRevisionChildren({ fn: fn(), revision: rev(), environment: env });
    expect(kids.map((k) => `${k.kind}/${k.metadata.name}`)).toEqual([
      'ConfigMap/hello-00001-code',
      'Deployment/hello-00001-deployment',
      'Service/hello-00001',
    ]);
    for (const k of kids) {
      expect(k.metadata.namespace).toBe('team-a');
      expect(k.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'Revision', uid: 'rev-uid', controller: true });
      expect(k.metadata.labels).toMatchObject({ 'orrery.dev/revision': 'hello-00001', [FUNCTION_LABEL]: 'hello' });
    }
  });

  it('the Deployment leaves replicas to the scale subresource and runs hardened', () => {
    const d = renderRevisionDeployment({ fn: fn(), revision: rev(), environment: env });
    expect(d.spec).not.toHaveProperty('replicas');
    const pod = podSpec(d);
    expect(pod.serviceAccountName).toBe('orrery-fn-hello');
    const c = pod.containers[0]!;
    expect(c.image).toBe('example/runtime:1');
    expect(c.resources).toEqual({ limits: { cpu: '500m' } });
    expect(c.args).toEqual(expect.arrayContaining(['--revision', 'hello-00001', '--source-file', '/var/orrery/code/index.mjs']));
    expect(c).toMatchObject({ securityContext: { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false } });
  });

  it('sets progressDeadlineSeconds only when the operator is given one (Kubernetes keeps its 600 s otherwise)', () => {
    expect(renderRevisionDeployment({ fn: fn(), revision: rev(), environment: env }).spec).not.toHaveProperty('progressDeadlineSeconds');
    expect(renderRevisionDeployment({ fn: fn(), revision: rev(), environment: env, progressDeadlineSeconds: 120 }).spec).toMatchObject({ progressDeadlineSeconds: 120 });
  });

  it('hands the operator’s tracing settings to the worker; a name the template sets wins', () => {
    const envOf = (d: Manifest) => ((d.spec as { template: { spec: { containers: Array<{ env: Array<{ name: string; value?: string }> }> } } }).template.spec.containers[0]!.env);
    expect(envOf(renderRevisionDeployment({ fn: fn(), revision: rev(), environment: env })).some((e) => e.name.startsWith('OTEL_'))).toBe(false);
    const traced = envOf(
      renderRevisionDeployment({
        fn: fn(),
        revision: rev({ source: { inline: 'export default () => "hi"' }, env: [{ name: 'OTEL_TRACES_SAMPLER', value: 'always_off' }] }),
        environment: env,
        workerTraceEnv: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_SAMPLER: 'always_on' },
      }),
    );
    expect(traced.filter((e) => e.name.startsWith('OTEL_'))).toEqual([
      { name: 'OTEL_EXPORTER_OTLP_ENDPOINT', value: 'http://collector:4318' },
      { name: 'OTEL_TRACES_SAMPLER', value: 'always_off' },
    ]);
  });

  it('uses the default image without an Environment and honours the template', () => {
    const r = rev({ source: { url: 'https://example.com/f.mjs' }, containerConcurrency: 3, timeoutSeconds: 30, env: [{ name: 'A', value: '1' }, { name: 'ORRERY_REVISION', value: 'spoof' }] });
    const d = renderRevisionDeployment({ fn: fn(), revision: r });
    const c = podSpec(d).containers[0]!;
    expect(c.image).toBe(DEFAULT_RUNTIME_IMAGE);
    expect(c.args).toEqual(expect.arrayContaining(['--container-concurrency', '3', '--timeout-seconds', '30']));
    expect(c.args).not.toContain('--source-file');
    expect(c.env).toContainEqual({ name: 'ORRERY_SOURCE_URL', value: 'https://example.com/f.mjs' });
    expect(c.env).toContainEqual({ name: 'A', value: '1' });
    // Users cannot override the platform's own variables.
    expect(c.env.filter((e) => e.name === 'ORRERY_REVISION')).toEqual([{ name: 'ORRERY_REVISION', value: 'hello-00001' }]);
    expect((d.spec as { template: { spec: { terminationGracePeriodSeconds: number } } }).template.spec.terminationGracePeriodSeconds).toBe(35);
    expect(renderCodeConfigMap(r)).toBeUndefined();
  });

  it('renders valueFrom.secretKeyRef as a real secretKeyRef: the kubelet resolves it, no value in the Deployment', () => {
    const r = rev({
      source: { inline: 'x' },
      env: [
        { name: 'API_KEY', valueFrom: { secretKeyRef: { name: 'shop-keys', key: 'api-key' } } },
        { name: 'OPTIONAL_KEY', valueFrom: { secretKeyRef: { name: 'shop-keys', key: 'other', optional: true } } },
        { name: 'EMPTY' },
        { name: 'ORRERY_STATE_TOKEN', valueFrom: { secretKeyRef: { name: 'stolen', key: 'k' } } },
      ],
    });
    const c = podSpec(renderRevisionDeployment({ fn: fn(), revision: r })).containers[0]!;
    expect(c.env).toContainEqual({ name: 'API_KEY', valueFrom: { secretKeyRef: { name: 'shop-keys', key: 'api-key' } } });
    expect(c.env).toContainEqual({ name: 'OPTIONAL_KEY', valueFrom: { secretKeyRef: { name: 'shop-keys', key: 'other', optional: true } } });
    expect(c.env).toContainEqual({ name: 'EMPTY', value: '' });
    expect(c.env.map((e) => e.name)).not.toContain('ORRERY_STATE_TOKEN');
  });

  it('runs the platform runtime image (--runtime-image) unless the Environment names its own', () => {
    const plain: Environment = parse({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Environment', metadata: { name: 'nodejs', namespace: 'team-a' }, spec: {} });
    const image = (e: Environment | undefined, runtimeImage?: string) => podSpec(renderRevisionDeployment({ fn: fn(), revision: rev(), environment: e, runtimeImage })).containers[0]!.image;
    expect(image(undefined, 'registry.example.com/orrery/runtime:0.1.0')).toBe('registry.example.com/orrery/runtime:0.1.0');
    // the schema's default image is no choice: the platform's image replaces it
    expect(image(plain, 'registry.example.com/orrery/runtime:0.1.0')).toBe('registry.example.com/orrery/runtime:0.1.0');
    expect(image(plain)).toBe(DEFAULT_RUNTIME_IMAGE);
    expect(image(env, 'registry.example.com/orrery/runtime:0.1.0')).toBe('example/runtime:1');
    expect(podSpec(renderPoolDeployment(plain, 'r/runtime:2')).containers[0]!.image).toBe('r/runtime:2');
    expect(podSpec(renderPoolDeployment(env, 'r/runtime:2')).containers[0]!.image).toBe('example/runtime:1');
    // one image name for the chart, the Dockerfile and the operator
    expect(DEFAULT_RUNTIME_IMAGE).toMatch(/^orrery\/runtime:/);
  });

  it('configMapRef sources mount the referenced ConfigMap', () => {
    const r = rev({ source: { configMapRef: { name: 'my-code', key: 'main.mjs' } } });
    const vols = podSpec(renderRevisionDeployment({ fn: fn(), revision: r })).volumes;
    expect(vols).toContainEqual({ name: 'code', configMap: { name: 'my-code', items: [{ key: 'main.mjs', path: 'index.mjs' }] } });
  });

  it('stateful revisions get a Secret with the token file, mounted read-only', () => {
    const kids = renderRevisionChildren({ fn: fn({ state: {} }), revision: rev(), environment: env, state });
    const secret = kids.find((k) => k.kind === 'Secret')!;
    expect(secret.metadata.name).toBe('hello-00001-state');
    const file = JSON.parse((secret.stringData as Record<string, string>)['.orrery-state-token']!) as unknown;
    expect(file).toEqual({ namespace: 'team-a', keyspace: 'hello', token: 'secret-token' });
    const d = kids.find((k) => k.kind === 'Deployment')!;
    const pod = podSpec(d);
    expect(pod.volumes).toContainEqual({ name: 'state', secret: { secretName: 'hello-00001-state', defaultMode: 0o444 } });
    const c = pod.containers[0]!;
    // The runtime reads the mounted file at start (flag names a path under the mount).
    expect(c.args.join(' ')).toContain('--state-url http://statesvc --state-keyspace hello --state-token-file /var/orrery/state/.orrery-state-token');
    expect(c.volumeMounts).toContainEqual({ name: 'state', mountPath: '/var/orrery/state', readOnly: true });
    // The token itself never appears in the Deployment (only in the Secret).
    expect(JSON.stringify(d)).not.toContain('secret-token');
    expect(renderStateSecret(rev(), state).type).toBe('Opaque');
    expect(c.args).not.toContain('--state-fencing');
    // spec.state.fencing adds one flag; without it the pod template is what it always was.
    const fenced = renderRevisionChildren({ fn: fn({ state: {} }), revision: rev(), environment: env, state: { ...state, fencing: true } });
    const fencedArgs = podSpec(fenced.find((k) => k.kind === 'Deployment')!).containers[0]!.args.join(' ');
    expect(fencedArgs).toBe(`${c.args.join(' ')} --state-fencing on`);
  });

  it('pool executor revisions only carry their code', () => {
    const kids = renderRevisionChildren({ fn: fn(), revision: rev({ source: { inline: 'x' }, executor: 'pool' }), environment: env, state });
    expect(kids.map((k) => k.kind)).toEqual(['ConfigMap']);
    expect(kids[0]).toMatchObject({ immutable: true, data: { 'index.mjs': 'x' } });
  });

  it('workers listen on all interfaces, register their pod IP and name with the registry', () => {
    const d = renderRevisionDeployment({ fn: fn(), revision: rev(), environment: env, registryUrls: ['http://reg-a:8080', 'http://reg-b:8080'] });
    const c = podSpec(d).containers[0]!;
    const arg = (flag: string) => c.args[c.args.indexOf(flag) + 1];
    expect(arg('--host')).toBe('0.0.0.0');
    expect(arg('--port')).toBe('8080');
    expect(arg('--registry-url')).toBe('http://reg-a:8080,http://reg-b:8080');
    expect(arg('--advertise-host')).toBe('$(POD_IP)');
    expect(arg('--instance-id')).toBe('$(POD_NAME)');
    expect(c.env).toContainEqual({ name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } });
    expect(c.env).toContainEqual({ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } });
    // Without registry URLs no --registry-url (the runtime then does not register).
    expect(podSpec(renderRevisionDeployment({ fn: fn(), revision: rev() })).containers[0]!.args).not.toContain('--registry-url');
    // A user variable cannot shadow the pod identity the flags refer to.
    const spoof = rev({ source: { inline: 'x' }, env: [{ name: 'POD_IP', value: '6.6.6.6' }] });
    expect(podSpec(renderRevisionDeployment({ fn: fn(), revision: spoof })).containers[0]!.env.filter((e) => e.name === 'POD_IP')).toHaveLength(1);
  });

  it('the Service selects ready workers of exactly this revision', () => {
    expect(renderRevisionService(rev()).spec).toMatchObject({
      selector: { 'orrery.dev/revision': 'hello-00001', 'orrery.dev/component': 'worker' },
      ports: [{ port: 80, targetPort: 'http' }],
    });
  });

  it('the ServiceAccount belongs to the Function', () => {
    const sa = renderServiceAccount(fn());
    expect(sa).toMatchObject({ kind: 'ServiceAccount', metadata: { name: 'orrery-fn-hello', ownerReferences: [{ kind: 'Function', uid: 'fn-uid' }] } });
  });
});

describe('pool children', () => {
  it('a Deployment of poolSize generic workers, a headless Service and a ServiceAccount', () => {
    const kids = renderPoolChildren(env);
    expect(kids.map((k) => `${k.kind}/${k.metadata.name}`)).toEqual([
      'ServiceAccount/orrery-pool-nodejs',
      'Deployment/orrery-pool-nodejs',
      'Service/orrery-pool-nodejs',
    ]);
    expect(renderPoolDeployment(env).spec).toMatchObject({ replicas: 4 });
    expect(kids[2]!.spec).toMatchObject({ clusterIP: 'None' });
    for (const k of kids) expect(k.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'Environment', uid: 'env-uid' });
    expect(podSpec(kids[1]!).containers[0]!.image).toBe('example/runtime:1');
  });

  it("pool workers get the operator's tracing settings, as deploy workers do", () => {
    const traced = podSpec(renderPoolDeployment(env, undefined, { workerTraceEnv: { OTEL_TRACES_SAMPLER: 'always_on', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' } })).containers[0]!;
    expect((traced.env as Array<{ name: string; value?: string }>).filter((e) => e.name.startsWith('OTEL_'))).toEqual([
      { name: 'OTEL_EXPORTER_OTLP_ENDPOINT', value: 'http://collector:4318' },
      { name: 'OTEL_TRACES_SAMPLER', value: 'always_on' },
    ]);
    const plain = podSpec(renderPoolDeployment(env)).containers[0]!;
    expect((plain.env as Array<{ name: string }>).some((e) => e.name.startsWith('OTEL_'))).toBe(false);
  });

  it('generic workers start in pool mode, register when specialized, and hold only their own nonce verifier', () => {
    const d = renderPoolDeployment(env, undefined, { registryUrls: ['http://reg:8080'], stateUrl: 'http://statesvc:8080' });
    const pod = podSpec(d) as ReturnType<typeof podSpec> & { initContainers: Array<{ name: string; args: string[]; env: unknown[]; image: string; volumeMounts: unknown[] }> };
    const c = pod.containers[0]!;
    const arg = (flag: string) => c.args[c.args.indexOf(flag) + 1];
    expect(arg('--mode')).toBe('pool');
    expect(arg('--host')).toBe('0.0.0.0');
    expect(arg('--registry-url')).toBe('http://reg:8080');
    expect(arg('--advertise-host')).toBe('$(POD_IP)');
    expect(arg('--namespace')).toBe('team-a');
    expect(arg('--specialize-verifier-file')).toBe('/var/orrery/specialize/verifier');
    expect(c.args).not.toContain('--specialize-token-file');
    expect(c.env).toContainEqual({ name: 'ORRERY_STATE_URL', value: 'http://statesvc:8080' });
    // The pool key is mounted into the init container only; the runtime gets a memory volume with the verifier.
    expect(pod.volumes).toContainEqual({ name: 'pool-key', secret: { secretName: 'orrery-pool-nodejs-specialize', defaultMode: 0o444 } });
    expect(pod.volumes).toContainEqual({ name: 'specialize', emptyDir: { medium: 'Memory', sizeLimit: '1Mi' } });
    expect(c.volumeMounts).toContainEqual({ name: 'specialize', mountPath: '/var/orrery/specialize' });
    expect(c.volumeMounts.map((m) => (m as { name: string }).name)).not.toContain('pool-key');
    const init = pod.initContainers;
    expect(init).toHaveLength(1);
    expect(init[0]).toMatchObject({
      name: 'specialize-verifier',
      image: c.image,
      args: ['write-specialize-verifier', '--pool-key-file', '/var/orrery/pool-key/token', '--namespace', 'team-a', '--pod-uid', '$(POD_UID)', '--out', '/var/orrery/specialize/verifier'],
      env: [{ name: 'POD_UID', valueFrom: { fieldRef: { fieldPath: 'metadata.uid' } } }],
    });
    expect(init[0]!.volumeMounts).toEqual([
      { name: 'pool-key', mountPath: '/var/orrery/pool-key', readOnly: true },
      { name: 'specialize', mountPath: '/var/orrery/specialize' },
    ]);
    // no flag the runtime does not know (it exits 2 on unknown flags)
    expect(c.args).not.toContain('--pool');
    expect(c.args).not.toContain('--environment');
  });

  it('the specialize Secret carries the given token and belongs to the Environment', () => {
    const s = renderSpecializeSecret(env, 'tok');
    expect(s).toMatchObject({ kind: 'Secret', metadata: { name: specializeSecretName('nodejs'), ownerReferences: [{ kind: 'Environment', uid: 'env-uid' }] }, data: { token: Buffer.from('tok').toString('base64') } });
    expect(renderPoolChildren(env).map((k) => k.kind)).not.toContain('Secret');
  });
});
