import type { V1ConfigMap, V1Container, V1Pod, V1Secret, V1Service } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ContainerConfigError, containerArgv, envReferences, resolveContainerEnv } from './env-resolve.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const pod: V1Pod = {
  metadata: { name: 'web-1', namespace: 'app', uid: 'u-1', labels: { tier: 'front', 'app.kubernetes.io/name': 'web' }, annotations: { note: 'hello' } },
  spec: { nodeName: 'node-1', serviceAccountName: 'sa', containers: [] },
};
const services: V1Service[] = [
  { metadata: { namespace: 'default', name: 'kubernetes' }, spec: { clusterIP: '10.96.0.1', ports: [{ name: 'https', port: 443 }] } },
  { metadata: { namespace: 'app', name: 'db' }, spec: { clusterIP: '10.96.0.5', ports: [{ port: 5432 }] } },
];
const configMaps = new Map<string, V1ConfigMap | undefined>([['cfg', { data: { MODE: 'fast', LEVEL: 'debug' } }]]);
const secrets = new Map<string, V1Secret | undefined>([['creds', { data: { password: b64('s3cret'), USER: b64('admin') } }]]);

const resolve = (c: Partial<V1Container>, p: V1Pod = pod) =>
  resolveContainerEnv({
    pod: p,
    container: { name: 'c', ...c },
    placement: { podIP: '10.244.1.7', hostIP: '10.245.0.1' },
    services,
    objects: { configMaps, secrets },
    allocatable: { cpu: '2', memory: '24Gi' },
  });

describe('resolveContainerEnv', () => {
  it('takes values, field refs, secret and configMap keys, in order, with $(VAR) expansion', () => {
    const env = resolve({
      env: [
        { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
        { name: 'NS', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
        { name: 'UID', valueFrom: { fieldRef: { fieldPath: 'metadata.uid' } } },
        { name: 'TIER', valueFrom: { fieldRef: { fieldPath: "metadata.labels['tier']" } } },
        { name: 'NAME', valueFrom: { fieldRef: { fieldPath: "metadata.labels['app.kubernetes.io/name']" } } },
        { name: 'NOTE', valueFrom: { fieldRef: { fieldPath: "metadata.annotations['note']" } } },
        { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
        { name: 'SA', valueFrom: { fieldRef: { fieldPath: 'spec.serviceAccountName' } } },
        { name: 'IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
        { name: 'IPS', valueFrom: { fieldRef: { fieldPath: 'status.podIPs' } } },
        { name: 'HOST', valueFrom: { fieldRef: { fieldPath: 'status.hostIP' } } },
        { name: 'PASS', valueFrom: { secretKeyRef: { name: 'creds', key: 'password' } } },
        { name: 'MODE', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'MODE' } } },
        { name: 'URL', value: 'http://$(POD).$(NS):$(DB_SERVICE_PORT)/$(LATER)?p=$$(POD)' },
        { name: 'LATER', value: 'x' },
        { name: 'EMPTY', value: '' },
      ],
    });
    expect(Object.fromEntries([...env].filter(([k]) => !k.includes('SERVICE') && !k.includes('_PORT')))).toEqual({
      POD: 'web-1',
      NS: 'app',
      UID: 'u-1',
      TIER: 'front',
      NAME: 'web',
      NOTE: 'hello',
      NODE: 'node-1',
      SA: 'sa',
      IP: '10.244.1.7',
      IPS: '10.244.1.7',
      HOST: '10.245.0.1',
      PASS: 's3cret',
      MODE: 'fast',
      URL: 'http://web-1.app:5432/$(LATER)?p=$(POD)',
      LATER: 'x',
      EMPTY: '',
    });
  });

  it('adds the service variables after the spec, unless the spec set them', () => {
    const env = resolve({ env: [{ name: 'DB_SERVICE_HOST', value: 'mine' }] });
    expect(env.get('DB_SERVICE_HOST')).toBe('mine');
    expect(env.get('KUBERNETES_SERVICE_HOST')).toBe('10.96.0.1');
    expect(env.get('KUBERNETES_SERVICE_PORT_HTTPS')).toBe('443');
    expect([...env.keys()].at(0)).toBe('DB_SERVICE_HOST');
  });

  it('leaves out other Services when enableServiceLinks is false, never the master one', () => {
    const env = resolve({}, { ...pod, spec: { ...pod.spec!, enableServiceLinks: false } });
    expect(env.has('DB_SERVICE_HOST')).toBe(false);
    expect(env.get('KUBERNETES_SERVICE_HOST')).toBe('10.96.0.1');
  });

  it('takes envFrom first (prefixed), then env overrides it', () => {
    const env = resolve({
      envFrom: [{ configMapRef: { name: 'cfg' } }, { secretRef: { name: 'creds' }, prefix: 'S_' }],
      env: [{ name: 'MODE', value: 'slow-$(LEVEL)' }],
    });
    expect(env.get('MODE')).toBe('slow-debug');
    expect(env.get('LEVEL')).toBe('debug');
    expect(env.get('S_USER')).toBe('admin');
    expect(env.get('S_password')).toBe('s3cret');
  });

  it('skips optional references that are missing', () => {
    const env = resolve({
      envFrom: [{ configMapRef: { name: 'nope', optional: true } }],
      env: [
        { name: 'A', valueFrom: { secretKeyRef: { name: 'nope', key: 'k', optional: true } } },
        { name: 'B', valueFrom: { secretKeyRef: { name: 'creds', key: 'missing', optional: true } } },
        { name: 'C', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'missing', optional: true } } },
      ],
    });
    expect(env.has('A') || env.has('B') || env.has('C')).toBe(false);
  });

  it.each([
    [{ env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 'nope', key: 'k' } } }] }, 'secret "nope" not found'],
    [{ env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 'creds', key: 'k' } } }] }, "couldn't find key k in Secret app/creds"],
    [{ env: [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'nope', key: 'k' } } }] }, 'configmap "nope" not found'],
    [{ env: [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'k' } } }] }, "couldn't find key k in ConfigMap app/cfg"],
    [{ envFrom: [{ secretRef: { name: 'nope' } }] }, 'secret "nope" not found'],
  ] as Array<[Partial<V1Container>, string]>)('refuses a missing required reference: %j', (c, message) => {
    expect(() => resolve(c)).toThrow(new ContainerConfigError(message));
  });

  it('gives resource limits and requests, with the node allocatable for a missing limit', () => {
    const env = resolve({
      resources: { requests: { cpu: '250m', memory: '64Mi' }, limits: { memory: '128Mi' } },
      env: [
        { name: 'CPU_REQ', valueFrom: { resourceFieldRef: { resource: 'requests.cpu', divisor: '1m' } } },
        { name: 'CPU_REQ_CORES', valueFrom: { resourceFieldRef: { resource: 'requests.cpu' } } },
        { name: 'CPU_LIM', valueFrom: { resourceFieldRef: { resource: 'limits.cpu' } } },
        { name: 'MEM_LIM', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } } },
        { name: 'MEM_REQ', valueFrom: { resourceFieldRef: { resource: 'requests.memory' } } },
      ],
    });
    expect([env.get('CPU_REQ'), env.get('CPU_REQ_CORES'), env.get('CPU_LIM'), env.get('MEM_LIM'), env.get('MEM_REQ')]).toEqual(['250', '1', '2', '128', String(64 * 1024 * 1024)]);
  });

  it('never takes anything from the environment it runs in', () => {
    process.env.PROCESS_KUBELET_UNIT_TEST_SECRET = 'leak';
    try {
      const env = resolve({ env: [{ name: 'X', value: '$(PROCESS_KUBELET_UNIT_TEST_SECRET)' }] });
      expect(env.get('X')).toBe('$(PROCESS_KUBELET_UNIT_TEST_SECRET)');
      expect([...env.keys()].some((k) => k === 'PATH' || k === 'HOME' || k.startsWith('PROCESS_KUBELET'))).toBe(false);
    } finally {
      delete process.env.PROCESS_KUBELET_UNIT_TEST_SECRET;
    }
  });
});

describe('envReferences', () => {
  it('lists the ConfigMaps and Secrets to fetch, once each', () => {
    expect(
      envReferences({
        name: 'c',
        envFrom: [{ configMapRef: { name: 'a' } }, { secretRef: { name: 's' } }],
        env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'a', key: 'k' } } }, { name: 'Y', valueFrom: { secretKeyRef: { name: 't', key: 'k' } } }],
      }),
    ).toEqual({ configMaps: ['a'], secrets: ['s', 't'] });
  });
});

describe('containerArgv', () => {
  const image = { entrypoint: ['node', 'app.mjs'], cmd: ['--port', '8080'] };
  const env = new Map([['PORT', '9000']]);
  it.each([
    ['neither: ENTRYPOINT + CMD', {}, ['node', 'app.mjs', '--port', '8080']],
    ['args only replace CMD', { args: ['--port', '$(PORT)'] }, ['node', 'app.mjs', '--port', '9000']],
    ['command only drops CMD', { command: ['sh', '-c', 'echo $(PORT)'] }, ['sh', '-c', 'echo 9000']],
    ['both', { command: ['x'], args: ['$(NOPE)', '$$(PORT)'] }, ['x', '$(NOPE)', '$(PORT)']],
    ['empty lists count as unset', { command: [], args: [] }, ['node', 'app.mjs', '--port', '8080']],
  ] as Array<[string, Partial<V1Container>, string[]]>)('%s', (_n, c, want) => {
    expect(containerArgv({ name: 'c', ...c }, image, env)).toEqual(want);
  });
});
