import type { V1Pod, V1Volume } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { configMapPayload, downwardAPIPayload, MountError, projectedPayload, secretPayload, sharedRunAsUser, type VolumeObjects, withFsGroup } from './volume-payloads.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const objects: VolumeObjects = {
  secrets: new Map([['s', { data: { 'tls.crt': b64('CRT'), 'tls.key': b64('KEY') } }]]),
  configMaps: new Map([['c', { data: { 'app.yaml': 'a: 1' }, binaryData: { blob: b64('\u0001\u0002') } }]]),
};
const text = (p: Map<string, { data: Buffer; mode: number }>) => Object.fromEntries([...p].map(([k, v]) => [k, [v.data.toString('utf8'), v.mode.toString(8)]]));
const pod: V1Pod = { metadata: { name: 'p', namespace: 'ns', uid: 'u', labels: { a: 'b' } }, spec: { containers: [{ name: 'c', resources: { limits: { memory: '64Mi' } } }] } };
const ctx = { pod, placement: { podIP: '10.244.1.9', hostIP: '10.245.0.1' }, allocatable: { cpu: '2', memory: '24Gi' } };

describe('secret and configMap payloads', () => {
  it('writes every key with the default mode', () => {
    expect(text(secretPayload('s', undefined, objects, 0o644, false))).toEqual({ 'tls.crt': ['CRT', '644'], 'tls.key': ['KEY', '644'] });
    expect(text(configMapPayload('c', undefined, objects, 0o600, false))).toEqual({ 'app.yaml': ['a: 1', '600'], blob: ['\u0001\u0002', '600'] });
  });

  it('writes only the items, at their paths and modes', () => {
    expect(text(secretPayload('s', [{ key: 'tls.key', path: 'private/key.pem', mode: 0o400 }], objects, 0o644, false))).toEqual({ 'private/key.pem': ['KEY', '400'] });
  });

  it('refuses a missing object or key unless optional', () => {
    expect(() => secretPayload('nope', undefined, objects, 0o644, false)).toThrow(new MountError('secret "nope" not found'));
    expect(secretPayload('nope', undefined, objects, 0o644, true).size).toBe(0);
    expect(() => configMapPayload('c', [{ key: 'x', path: 'x' }], objects, 0o644, false)).toThrow(/references non-existent configmap key: x/);
    expect(configMapPayload('c', [{ key: 'x', path: 'x' }], objects, 0o644, true).size).toBe(0);
  });
});

describe('downwardAPIPayload', () => {
  it('writes fields and resources', () => {
    const p = downwardAPIPayload(
      [
        { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } },
        { path: 'name', fieldRef: { fieldPath: 'metadata.name' } },
        { path: 'mem', resourceFieldRef: { containerName: 'c', resource: 'limits.memory', divisor: '1Mi' }, mode: 0o400 },
      ],
      ctx,
      0o644,
    );
    expect(text(p)).toEqual({ labels: ['a="b"', '644'], name: ['p', '644'], mem: ['64', '400'] });
  });
});

describe('projectedPayload', () => {
  const volume: V1Volume = {
    name: 'kube-api-access-x',
    projected: {
      defaultMode: 0o644,
      sources: [
        { serviceAccountToken: { path: 'token', expirationSeconds: 3607 } },
        { configMap: { name: 'c', items: [{ key: 'app.yaml', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { fieldPath: 'metadata.namespace' } }] } },
      ],
    },
  };

  it('combines its sources (the kube-api-access volume)', () => {
    const p = projectedPayload(volume, { ...ctx, objects, tokenFor: () => 'jwt' });
    expect(text(p)).toEqual({ token: ['jwt', '644'], 'ca.crt': ['a: 1', '644'], namespace: ['ns', '644'] });
  });

  it('makes the token 0600 and owned by the one runAsUser every container shares', () => {
    const p2: V1Pod = { ...pod, spec: { securityContext: { runAsUser: 1000 }, containers: [{ name: 'c' }, { name: 'd', securityContext: { runAsUser: 1000 } }] } };
    const t = projectedPayload(volume, { ...ctx, pod: p2, objects, tokenFor: () => 'jwt' }).get('token')!;
    expect([t.mode, t.uid]).toEqual([0o600, 1000]);
  });

  it('refuses sources it cannot project', () => {
    expect(() => projectedPayload({ name: 'v', projected: { sources: [{ clusterTrustBundle: { path: 'x' } }] } }, { ...ctx, objects, tokenFor: () => '' })).toThrow(MountError);
  });
});

describe('sharedRunAsUser', () => {
  it('is the uid when all containers run as one, else undefined', () => {
    expect(sharedRunAsUser({ spec: { securityContext: { runAsUser: 5 }, containers: [{ name: 'a' }], initContainers: [{ name: 'i' }] } })).toBe(5);
    expect(sharedRunAsUser({ spec: { securityContext: { runAsUser: 5 }, containers: [{ name: 'a', securityContext: { runAsUser: 6 } }, { name: 'b' }] } })).toBeUndefined();
    expect(sharedRunAsUser({ spec: { containers: [{ name: 'a' }] } })).toBeUndefined();
  });
});

describe('withFsGroup', () => {
  it('makes files group-readable by the fsGroup', () => {
    const p = withFsGroup(new Map([['k', { data: Buffer.from(''), mode: 0o400 }]]), 2000);
    expect(p.get('k')).toMatchObject({ mode: 0o440, gid: 2000 });
    expect(withFsGroup(p, undefined)).toBe(p);
  });
});
