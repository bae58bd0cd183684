import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type PodSpec, VolumeNotReady, expandVars, podLaunch } from './fake-kubelet.ts';

// The fake-kubelet's translation of a pod into a local process launch (no process started here).
const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

const spec: PodSpec = {
  containers: [
    {
      args: ['--port', '8080', '--advertise-host', '$(POD_IP)', '--instance-id', '$(POD_NAME)', '--token-file', '/var/s/token', '--work-dir', '/tmp/w', '--literal', '$$(POD_IP)', '--unknown', '$(NOPE)'],
      env: [
        { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
        { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
        { name: 'CODE', value: '/var/code/index.mjs' },
        { name: 'GREETING', value: 'hi $(POD_NAME)' },
      ],
      ports: [{ containerPort: 8080 }],
      readinessProbe: { httpGet: { path: '/readyz' } },
      volumeMounts: [
        { name: 's', mountPath: '/var/s' },
        { name: 'code', mountPath: '/var/code' },
        { name: 'tmp', mountPath: '/tmp' },
      ],
    },
  ],
  volumes: [
    { name: 's', secret: { secretName: 'sec', defaultMode: 0o444 } },
    { name: 'code', configMap: { name: 'cm', items: [{ key: 'main.mjs', path: 'index.mjs' }] } },
    { name: 'tmp', emptyDir: {} },
  ],
};

describe('fake-kubelet pod translation', () => {
  it('expands $(VAR) as the kubelet does ($$ escapes, unknown names stay)', () => {
    expect(expandVars('a $(X) $$(X) $(Y)', { X: '1' })).toBe('a 1 $(X) $(Y)');
  });

  it('resolves the downward API, materialises volumes, remaps mount paths and the container port', async () => {
    const root = await mkdtemp(join(tmpdir(), 'fake-kubelet-'));
    dirs.push(root);
    const lookup = (kind: string, _ns: string, name: string) =>
      kind === 'Secret' && name === 'sec' ? { data: { token: Buffer.from('t0k').toString('base64') } } : kind === 'ConfigMap' && name === 'cm' ? { data: { 'main.mjs': 'export default 1' } } : undefined;
    const l = await podLaunch({ metadata: { name: 'pod-1', namespace: 'ns' }, spec }, { runtime: { command: 'node', args: ['rt.mjs'] }, lookup, root });
    const s = l.mounts['/var/s']!;
    const tmp = l.mounts['/tmp']!;
    expect(l.args).toEqual(['rt.mjs', '--port', '0', '--advertise-host', '127.0.0.1', '--instance-id', 'pod-1', '--token-file', `${s}/token`, '--work-dir', `${tmp}/w`, '--literal', '$(POD_IP)', '--unknown', '$(NOPE)']);
    expect(l.env).toMatchObject({ POD_IP: '127.0.0.1', POD_NAME: 'pod-1', CODE: `${l.mounts['/var/code']}/index.mjs`, GREETING: 'hi pod-1', TMPDIR: tmp });
    expect(await readFile(`${s}/token`, 'utf8')).toBe('t0k');
    expect((await stat(`${s}/token`)).mode & 0o777).toBe(0o444);
    expect(await readFile(`${l.mounts['/var/code']}/index.mjs`, 'utf8')).toBe('export default 1');
    expect(l.readinessPath).toBe('/readyz');
  });

  it('a missing Secret keeps the pod from starting (VolumeNotReady, like ContainerCreating)', async () => {
    const root = await mkdtemp(join(tmpdir(), 'fake-kubelet-'));
    dirs.push(root);
    await expect(podLaunch({ metadata: { name: 'p' }, spec }, { runtime: { command: 'node', args: [] }, lookup: () => undefined, root })).rejects.toBeInstanceOf(VolumeNotReady);
  });
});
