import { type OrreryFunction, type Revision, parseResource } from '@orrery/spec';
import { describe, expect, it } from 'vitest';
import { renderRevisionDeployment } from '../render/revision-children.ts';

function parse<T>(obj: unknown): T {
  const r = parseResource(obj);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.resource as T;
}

const SHA = 'c'.repeat(64);
const KEY = 'd'.repeat(64);
const template = { source: { package: { sha256: SHA, main: 'lib/main.js' } }, executor: 'deploy' };
const fn: OrreryFunction = parse({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', metadata: { name: 'pkg', namespace: 'team-a', uid: 'u1' }, spec: { template } });
const rev: Revision = parse({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Revision', metadata: { name: 'pkg-00001', namespace: 'team-a', uid: 'u2', labels: { 'orrery.dev/function': 'pkg' } }, spec: { function: 'pkg', template } });

type PodSpec = { containers: Array<{ args: string[]; volumeMounts: object[] }>; volumes: object[] };
const podOf = (m: ReturnType<typeof renderRevisionDeployment>) => (m.spec as { template: { spec: PodSpec } }).template.spec;

describe('worker Deployment of a package revision', () => {
  it('mounts the built key\'s folder of the package volume read-only and starts the runtime on it', () => {
    const pod = podOf(renderRevisionDeployment({ fn, revision: rev, packageKey: KEY }));
    const c = pod.containers[0]!;
    expect(pod.volumes).toContainEqual({ name: 'package', persistentVolumeClaim: { claimName: 'orrery-packages', readOnly: true } });
    expect(c.volumeMounts).toContainEqual({ name: 'package', mountPath: '/var/orrery/package', subPath: `built/${KEY}`, readOnly: true });
    expect(c.args.join(' ')).toContain('--source-dir /var/orrery/package --source-main lib/main.js');
    expect(c.args).not.toContain('--source-file');
  });

  it('has no package volume before the key is known', () => {
    const pod = podOf(renderRevisionDeployment({ fn, revision: rev }));
    expect(JSON.stringify(pod.volumes)).not.toContain('orrery-packages');
    expect(pod.containers[0]!.args).not.toContain('--source-dir');
  });
});
