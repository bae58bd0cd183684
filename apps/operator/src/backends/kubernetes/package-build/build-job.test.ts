import { describe, expect, it } from 'vitest';
import { BUILDER_BIN, renderBuildJob } from './build-job.ts';

const SHA = 'a'.repeat(64);
const KEY = 'b'.repeat(64);
const base = { namespace: 'team-a', sha256: SHA, key: KEY, builder: 'node' as const, image: 'orrery/builder:0.1.0', timeoutSeconds: 300, requestedBy: 'hello', volumeUid: 'pvc-uid' };

type Pod = {
  restartPolicy: string;
  automountServiceAccountToken: boolean;
  enableServiceLinks: boolean;
  securityContext: Record<string, unknown>;
  initContainers?: Array<{ name: string; command: string[]; volumeMounts: Array<{ name: string; readOnly?: boolean }> }>;
  containers: Array<{ name: string; image: string; command: string[]; env: Array<{ name: string; value?: string; valueFrom?: unknown }>; envFrom?: unknown; resources: { limits: Record<string, string> }; securityContext: Record<string, unknown>; terminationMessagePolicy: string; volumeMounts: Array<{ name: string; mountPath: string; readOnly?: boolean }> }>;
  volumes: Array<Record<string, unknown>>;
};
const podOf = (job: ReturnType<typeof renderBuildJob>) => (job.spec as { template: { spec: Pod } }).template.spec;

describe('renderBuildJob', () => {
  it('is named and labelled by the build key, owned by the package volume, run once with a deadline', () => {
    const job = renderBuildJob(base);
    expect(job.metadata.name).toBe(`orrery-build-${'b'.repeat(20)}`);
    expect(job.metadata.labels).toMatchObject({ 'orrery.dev/build-key': 'b'.repeat(20), 'orrery.dev/function': 'hello', 'orrery.dev/component': 'package-build' });
    expect(job.metadata.annotations).toEqual({ 'orrery.dev/build-key': KEY, 'orrery.dev/package-sha256': SHA, 'orrery.dev/builder': 'node orrery/builder:0.1.0' });
    expect(job.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'PersistentVolumeClaim', name: 'orrery-packages', uid: 'pvc-uid', controller: false, blockOwnerDeletion: false }]);
    expect(job.spec).toMatchObject({ backoffLimit: 0, activeDeadlineSeconds: 360 });
  });

  it('runs orrery-build from the package store ConfigMap into built/<key> on the package volume', () => {
    const pod = podOf(renderBuildJob({ ...base, main: 'src/handler.js' }));
    const c = pod.containers[0]!;
    expect(c.image).toBe('orrery/builder:0.1.0');
    expect(c.command.slice(0, 2)).toEqual(['node', '-e']);
    expect(c.command.slice(3)).toEqual([
      '--', BUILDER_BIN,
      '--archive', '/var/orrery/archive/package.tgz',
      '--sha256', SHA,
      '--runtime', 'node',
      '--out', `/packages/built/${KEY}`,
      '--timeout-seconds', '300',
      '--main', 'src/handler.js',
    ]);
    expect(pod.volumes).toContainEqual({ name: 'archive', configMap: { name: `orrery-package-${'a'.repeat(20)}`, items: [{ key: 'package.tgz', path: 'package.tgz' }] } });
    expect(pod.volumes).toContainEqual({ name: 'packages', persistentVolumeClaim: { claimName: 'orrery-packages' } });
    expect(c.volumeMounts).toContainEqual({ name: 'archive', mountPath: '/var/orrery/archive', readOnly: true });
    expect(c.volumeMounts).toContainEqual({ name: 'packages', mountPath: '/packages' });
    expect(pod.initContainers).toBeUndefined();
  });

  it('gets no token, no Secret, no service links, runs non-root with limits, and reports through its termination message', () => {
    const pod = podOf(renderBuildJob(base));
    const c = pod.containers[0]!;
    expect(pod.restartPolicy).toBe('Never');
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.enableServiceLinks).toBe(false);
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 65532, fsGroup: 65532 });
    expect(c.securityContext).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
    expect(c.resources.limits).toMatchObject({ cpu: '1', memory: '1Gi' });
    expect(c.env.every((e) => e.valueFrom === undefined)).toBe(true);
    expect(c.envFrom).toBeUndefined();
    expect(JSON.stringify(pod.volumes)).not.toContain('secret');
    expect(c.terminationMessagePolicy).toBe('FallbackToLogsOnError');
  });

  it('fetches a package url in an init container into an emptyDir instead of the ConfigMap', () => {
    const pod = podOf(renderBuildJob({ ...base, url: 'https://example.com/pkg.tgz' }));
    expect(pod.initContainers?.[0]?.name).toBe('fetch');
    expect(pod.initContainers?.[0]?.command.slice(-3)).toEqual(['https://example.com/pkg.tgz', '/var/orrery/archive/package.tgz', String(64 * 1024 * 1024)]);
    expect(pod.volumes).toContainEqual({ name: 'archive', emptyDir: { sizeLimit: '64Mi' } });
    expect(JSON.stringify(pod.volumes)).not.toContain('configMap');
    expect(pod.containers[0]!.volumeMounts).toContainEqual({ name: 'archive', mountPath: '/var/orrery/archive', readOnly: false });
  });

  it('has no owner before the volume exists', () => {
    expect(renderBuildJob({ ...base, volumeUid: undefined }).metadata.ownerReferences).toBeUndefined();
  });
});
