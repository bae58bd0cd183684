import { type Environment, parseResource } from '@orrery/spec';
import { describe, expect, it } from 'vitest';
import { poolPackageDir } from '../package-build/package-mount.ts';
import type { Manifest } from './labels.ts';
import { renderPoolChildren, renderPoolDeployment } from './pool.ts';

const parsed = parseResource({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Environment',
  metadata: { name: 'nodejs', namespace: 'team-a', uid: 'env-uid' },
  spec: { image: 'example/runtime:1', poolSize: 2 },
});
if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
const env = parsed.resource as Environment;

type Mount = { name: string; mountPath: string; readOnly?: boolean; subPath?: string };
type Pod = {
  containers: Array<{ name: string; volumeMounts: Mount[] }>;
  initContainers: Array<{ volumeMounts: Mount[] }>;
  volumes: Array<{ name: string; persistentVolumeClaim?: { claimName: string; readOnly?: boolean } }>;
};
const pod = (m: Manifest): Pod => (m.spec as { template: { spec: Pod } }).template.spec;

describe('pool pods and the package volume (packages on the pool executor)', () => {
  it('mount the whole package volume read-only at a fixed path once the claim exists', () => {
    const p = pod(renderPoolDeployment(env, undefined, { packageVolume: true }));
    expect(p.volumes).toContainEqual({ name: 'packages', persistentVolumeClaim: { claimName: 'orrery-packages', readOnly: true } });
    const runtime = p.containers.find((c) => c.name === 'runtime')!;
    // No subPath: which build a generic pod loads is known only at specialize.
    expect(runtime.volumeMounts).toContainEqual({ name: 'packages', mountPath: '/var/orrery/packages', readOnly: true });
    // The init container, which holds the pool key, never sees function packages.
    expect(p.initContainers.flatMap((c) => c.volumeMounts).map((m) => m.name)).not.toContain('packages');
    expect(renderPoolChildren(env, undefined, { packageVolume: true })[1]).toEqual(renderPoolDeployment(env, undefined, { packageVolume: true }));
  });

  it('name no claim without one: a pod on a missing claim would wait in Pending forever', () => {
    for (const opts of [{}, { packageVolume: false }]) {
      const p = pod(renderPoolDeployment(env, undefined, opts));
      expect(p.volumes.some((v) => v.persistentVolumeClaim)).toBe(false);
      expect(p.containers[0]!.volumeMounts.map((m) => m.name)).not.toContain('packages');
    }
  });

  it("specialize names a build's folder under the mount", () => {
    expect(poolPackageDir('a'.repeat(64))).toBe(`/var/orrery/packages/built/${'a'.repeat(64)}`);
  });
});
