/**
 * Volumes at the paths the pod spec names, each pod in its own mount namespace: Secrets,
 * ConfigMaps, the downward API, emptyDir, and the projected ServiceAccount token the API server
 * issues through the TokenRequest API, which authenticates the pod's process as its
 * ServiceAccount so RBAC applies to it.
 */
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, RbacAuthorizationV1Api, type V1Container } from '@kubernetes/client-node';
import { waitFor } from '@orrery/etcdcluster';
import { describe, expect, it } from 'vitest';
import { auditEvents, containerLog, podDir } from '../cluster-access.ts';
import { namespaceForFile } from '../namespace-for-file.ts';

const { kc, ns } = namespaceForFile('kubelet-vol');
const core = kc.makeApiClient(CoreV1Api);
const rbac = kc.makeApiClient(RbacAuthorizationV1Api);

const node = (name: string, script: string, extra: Partial<V1Container> = {}): V1Container => ({ name, image: 'orrery/runtime', command: ['node', '-e', script], ...extra });

async function logLine(pod: string, container: string, prefix: string): Promise<string> {
  return waitFor(`${pod}/${container} prints ${prefix}`, 40_000, async () => containerLog(ns(), pod, container).split('\n').find((l) => l.startsWith(prefix))?.slice(prefix.length), () => containerLog(ns(), pod, container), 250);
}

/** Reads a list of files and prints them as JSON (missing files as null). */
const READ_FILES = (files: string[]) =>
  `const fs = require('fs'); const out = {}; for (const f of ${JSON.stringify(files)}) { try { out[f] = fs.readFileSync(f, 'utf8'); } catch (e) { out[f] = e.code; } } console.log('FILES ' + JSON.stringify(out)); setInterval(() => {}, 1000)`;

describe('pod volumes', () => {
  it('mounts Secret, ConfigMap, downward API and emptyDir volumes at their paths; two pods keep different content at the same path', async () => {
    const files = ['/etc/demo/secret/password', '/etc/demo/config/app.yaml', '/etc/demo/info/labels', '/etc/demo/one-key', '/scratch/mine'];
    for (const who of ['alpha', 'beta']) {
      await core.createNamespacedSecret({ namespace: ns(), body: { metadata: { name: `${who}-secret` }, stringData: { password: `${who}-pw`, other: 'x' } } });
      await core.createNamespacedConfigMap({ namespace: ns(), body: { metadata: { name: `${who}-config` }, data: { 'app.yaml': `owner: ${who}\n` } } });
      await core.createNamespacedPod({
        namespace: ns(),
        body: {
          metadata: { name: who, labels: { who } },
          spec: {
            volumes: [
              { name: 'secret', secret: { secretName: `${who}-secret`, items: [{ key: 'password', path: 'password' }], defaultMode: 0o440 } },
              { name: 'config', configMap: { name: `${who}-config` } },
              { name: 'info', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
              { name: 'scratch', emptyDir: {} },
            ],
            securityContext: { fsGroup: 2000 },
            initContainers: [node('seed', `require('fs').writeFileSync('/scratch/mine', '${who}')`, { volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }] })],
            containers: [
              node('app', READ_FILES(files), {
                volumeMounts: [
                  { name: 'secret', mountPath: '/etc/demo/secret', readOnly: true },
                  { name: 'config', mountPath: '/etc/demo/config' },
                  { name: 'info', mountPath: '/etc/demo/info' },
                  { name: 'config', mountPath: '/etc/demo/one-key', subPath: 'app.yaml' },
                  { name: 'scratch', mountPath: '/scratch' },
                ],
              }),
            ],
          },
        },
      });
    }
    for (const who of ['alpha', 'beta']) {
      const got = JSON.parse(await logLine(who, 'app', 'FILES ')) as Record<string, string>;
      expect(got).toEqual({
        '/etc/demo/secret/password': `${who}-pw`,
        '/etc/demo/config/app.yaml': `owner: ${who}\n`,
        '/etc/demo/info/labels': `who="${who}"`,
        '/etc/demo/one-key': `owner: ${who}\n`,
        '/scratch/mine': who,
      });
      // The volume's files stay in the pod's folder; the host path exists only as a mount point.
      const dir = podDir(ns(), who)!;
      const secretFile = join(dir, 'volumes', 'kubernetes.io~secret', 'secret', 'password');
      expect(readFileSync(secretFile, 'utf8')).toBe(`${who}-pw`);
      const st = statSync(secretFile);
      expect([st.mode & 0o777, st.gid]).toEqual([0o440, 2000]);
    }
    expect(existsSync('/etc/demo/secret/password')).toBe(false);
  });

  it('updates a mounted Secret in place (atomically, through ..data) when the Secret changes', async () => {
    await core.replaceNamespacedSecret({ name: 'alpha-secret', namespace: ns(), body: { metadata: { name: 'alpha-secret' }, stringData: { password: 'rotated', other: 'x' } } });
    const file = join(podDir(ns(), 'alpha')!, 'volumes', 'kubernetes.io~secret', 'secret', 'password');
    await waitFor('the rotated password on disk', 40_000, async () => (readFileSync(file, 'utf8') === 'rotated' ? true : undefined), undefined, 500);
    const dir = join(podDir(ns(), 'alpha')!, 'volumes', 'kubernetes.io~secret', 'secret');
    expect(readdirSync(dir).filter((e) => e.startsWith('..2')).length).toBe(1);
  });

  it('mounts a Bound PersistentVolumeClaim (its hostPath PersistentVolume) and keeps data across pods', async () => {
    const hostDir = mkdtempSync(join(tmpdir(), 'kubelet-pv-'));
    // hostPath volumes get no ownership changes (as on a real node): the folder must let uid 1000 write.
    chmodSync(hostDir, 0o777);
    const pv = `kubelet-test-${ns()}`;
    await core.createPersistentVolume({ body: { metadata: { name: pv }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: hostDir }, storageClassName: 'manual', claimRef: { namespace: ns(), name: 'data' } } } });
    try {
      await core.createNamespacedPersistentVolumeClaim({ namespace: ns(), body: { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'manual', resources: { requests: { storage: '1Gi' } } } } });
      await waitFor('the claim bound', 30_000, async () => ((await core.readNamespacedPersistentVolumeClaim({ name: 'data', namespace: ns() })).status?.phase === 'Bound' ? true : undefined), undefined, 250);
      const writer = (name: string, script: string) =>
        core.createNamespacedPod({
          namespace: ns(),
          body: { metadata: { name }, spec: { restartPolicy: 'Never', volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }], containers: [node('c', script, { volumeMounts: [{ name: 'd', mountPath: '/var/lib/app' }] })] } },
        });
      await writer('pv-writer', "require('fs').writeFileSync('/var/lib/app/state', 'kept')");
      await waitFor('the data on the volume', 30_000, async () => (existsSync(join(hostDir, 'state')) ? true : undefined), undefined, 250);
      await writer('pv-reader', "console.log('READ ' + require('fs').readFileSync('/var/lib/app/state', 'utf8'))");
      expect(await logLine('pv-reader', 'c', 'READ ')).toBe('kept');
    } finally {
      await core.deleteNamespacedPod({ name: 'pv-writer', namespace: ns() }).catch(() => undefined);
      await core.deleteNamespacedPod({ name: 'pv-reader', namespace: ns() }).catch(() => undefined);
      await core.deletePersistentVolume({ name: pv }).catch(() => undefined);
      rmSync(hostDir, { recursive: true, force: true });
    }
  });

  it("authenticates the pod's process as its ServiceAccount with the projected token, and RBAC decides", async () => {
    await core.createNamespacedServiceAccount({ namespace: ns(), body: { metadata: { name: 'reader' } } });
    await rbac.createNamespacedRole({ namespace: ns(), body: { metadata: { name: 'read-configmaps' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }] } });
    await rbac.createNamespacedRoleBinding({
      namespace: ns(),
      body: { metadata: { name: 'reader' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'read-configmaps' }, subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: ns() }] },
    });
    // An in-cluster client, as Orrery's operator is one: KUBERNETES_SERVICE_HOST:PORT and the mounted token.
    const CLIENT = `
      import { KubeConfig, CoreV1Api } from '@kubernetes/client-node';
      import { readFileSync } from 'node:fs';
      const kc = new KubeConfig(); kc.loadFromCluster();
      const core = kc.makeApiClient(CoreV1Api);
      const ns = readFileSync('/var/run/secrets/kubernetes.io/serviceaccount/namespace', 'utf8');
      const cms = await core.listNamespacedConfigMap({ namespace: ns }).then((l) => 'OK ' + l.items.length, (e) => 'ERR ' + e.code);
      const secrets = await core.listNamespacedSecret({ namespace: ns }).then((l) => 'OK ' + l.items.length, (e) => 'ERR ' + e.code);
      console.log('RBAC ' + JSON.stringify({ server: kc.getCurrentCluster().server, cms, secrets }));
      setInterval(() => {}, 1000);`;
    await core.createNamespacedPod({
      namespace: ns(),
      body: { metadata: { name: 'api-client' }, spec: { serviceAccountName: 'reader', containers: [{ name: 'client', image: 'orrery/runtime', command: ['node', '--input-type=module', '-e', CLIENT] }] } },
    });
    const got = JSON.parse(await logLine('api-client', 'client', 'RBAC ')) as { server: string; cms: string; secrets: string };
    expect(got.server).toBe('https://10.96.0.1:443');
    expect(got.cms).toMatch(/^OK \d+$/);
    expect(got.secrets).toBe('ERR 403');

    const pod = await core.readNamespacedPod({ name: 'api-client', namespace: ns() });
    const denied = auditEvents((e) => e.user.username === `system:serviceaccount:${ns()}:reader` && e.objectRef?.resource === 'secrets' && e.objectRef.namespace === ns());
    expect(denied.at(-1)?.responseStatus?.code).toBe(403);
    // A bound token: the audit log names the pod it was issued for.
    expect(denied.at(-1)?.user.extra?.['authentication.kubernetes.io/pod-name']).toEqual(['api-client']);
    expect(denied.at(-1)?.user.extra?.['authentication.kubernetes.io/pod-uid']).toEqual([pod.metadata!.uid]);
  });
});
