/**
 * The resource commands against a real kube-apiserver (the test cluster, Orrery's CRDs from
 * charts/orrery/crds): apply (also from stdin) is a server-side apply as `orrery-cli`, a field
 * another manager owns is a conflict naming it until --force-conflicts, get lists through the
 * API server ($KUBECONFIG works as --kubeconfig does), deploy writes the code ConfigMap and a
 * Function that references it, describe shows the Events recorded about the function, delete
 * removes the Function and its code ConfigMaps. No operator runs here: deploy's waiting is
 * covered against the local operator (deploy.int.test.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, KubernetesObjectApi, PatchStrategy, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { adminKubeConfig, createNamespace, installCrds, REPO_ROOT, testEnv } from '@orrery/kube-testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../testing/local-operator.ts';

const CLI = join(import.meta.dirname, '..', '..', 'bin', 'orrery.mjs');
type Fn = KubernetesObject & { spec: { template: { containerConcurrency?: number; source: Record<string, unknown> } } };

let kc: KubeConfig;
let objects: KubernetesObjectApi;
let core: CoreV1Api;
let ns: { name: string; dispose: () => Promise<void> };
let dir = '';
let kubeconfig = '';

const manifest = (concurrency: number) => `apiVersion: orrery.dev/v1alpha1
kind: Function
metadata: {name: web, namespace: ${ns.name}}
spec:
  template:
    source: {inline: "export default () => new Response('hi')"}
    containerConcurrency: ${concurrency}
`;
const orrery = (args: string[], stdin?: string, env: Record<string, string> = {}) => runCli(CLI, args, dir, env, stdin);
const readFn = (name: string) => objects.read<Fn>({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', metadata: { name, namespace: ns.name } });

beforeAll(async () => {
  kc = adminKubeConfig();
  kubeconfig = testEnv().adminKubeconfig;
  objects = KubernetesObjectApi.makeApiClient(kc);
  core = kc.makeApiClient(CoreV1Api);
  await installCrds(kc, join(REPO_ROOT, 'charts', 'orrery', 'crds'));
  ns = await createNamespace('cli');
  dir = mkdtempSync(join(tmpdir(), 'orrery-cli-kube-'));
});
afterAll(async () => {
  await ns?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe('orrery on Kubernetes', () => {
  it('apply -f - is a server-side apply as orrery-cli: created, unchanged, configured', async () => {
    expect(await orrery(['apply', '-f', '-', '--kubeconfig', kubeconfig], manifest(2))).toMatchObject({ code: 0, out: 'function.orrery.dev/web created\n' });
    expect(await orrery(['apply', '-f', '-', '--kubeconfig', kubeconfig], manifest(2))).toMatchObject({ code: 0, out: 'function.orrery.dev/web unchanged\n' });
    expect(await orrery(['apply', '-f', '-', '--kubeconfig', kubeconfig], manifest(3))).toMatchObject({ code: 0, out: 'function.orrery.dev/web configured\n' });
    const fn = await readFn('web');
    expect(fn.spec.template.containerConcurrency).toBe(3);
    expect(fn.metadata?.managedFields?.find((f) => f.manager === 'orrery-cli')?.operation).toBe('Apply');
  });

  it('a field another manager owns is a conflict naming it, until --force-conflicts', async () => {
    await objects.patch(
      { apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', metadata: { name: 'web', namespace: ns.name }, spec: { template: { source: { inline: "export default () => new Response('hi')" }, containerConcurrency: 7 } } },
      undefined, undefined, 'gitops-bot', true, PatchStrategy.ServerSideApply,
    );
    const refused = await orrery(['apply', '-f', '-', '--kubeconfig', kubeconfig], manifest(3));
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('.spec.template.containerConcurrency (owned by "gitops-bot")');
    expect((await readFn('web')).spec.template.containerConcurrency).toBe(7);
    expect(await orrery(['apply', '-f', '-', '--kubeconfig', kubeconfig, '--force-conflicts'], manifest(3))).toMatchObject({ code: 0, out: 'function.orrery.dev/web configured\n' });
    expect((await readFn('web')).spec.template.containerConcurrency).toBe(3);
  });

  it('get lists through the API server, with --kubeconfig or $KUBECONFIG; a wrong --context says which exist', async () => {
    const table = await orrery(['get', 'functions', '-n', ns.name, '--kubeconfig', kubeconfig]);
    expect(table.code, table.err).toBe(0);
    expect(table.out).toMatch(/^NAME\s+READY\s+LATEST\s+URL\s+TRAFFIC\s+AGE\nweb\s+Unknown\s+<none>\s+<none>\s+latest=100%\s+\d+s\n$/);
    expect(await orrery(['get', 'fn', '-n', ns.name, '-o', 'name'], undefined, { KUBECONFIG: kubeconfig })).toMatchObject({ code: 0, out: 'function.orrery.dev/web\n' });
    const wrong = await orrery(['get', 'fn', '-n', ns.name, '--kubeconfig', kubeconfig, '--context', 'nope']);
    expect(wrong.code).toBe(1);
    expect(wrong.err).toMatch(/--context nope: not in the kubeconfig \(it has \S+/);
  });

  it('deploy puts the code in an immutable ConfigMap the Function references', async () => {
    writeFileSync(join(dir, 'hello.mjs'), "export default async () => Response.json({ hello: 'kube' });\n");
    const r = await orrery(['deploy', 'hello', '--code', 'hello.mjs', '--concurrency', '4', '-n', ns.name, '--kubeconfig', kubeconfig, '--no-wait']);
    expect(r, r.err).toMatchObject({ code: 0, out: 'function.orrery.dev/hello created\n' });
    const source = (await readFn('hello')).spec.template.source as { configMapRef: { name: string; key: string } };
    expect(source.configMapRef).toEqual({ name: expect.stringMatching(/^hello-code-[0-9a-f]{10}$/) as string, key: 'index.mjs' });
    const cm = await core.readNamespacedConfigMap({ namespace: ns.name, name: source.configMapRef.name });
    expect(cm.data).toEqual({ 'index.mjs': "export default async () => Response.json({ hello: 'kube' });\n" });
    expect(cm.immutable).toBe(true);
    // No operator in this cluster: the wait gives up, and says the deploy goes on.
    const waited = await orrery(['deploy', 'hello', '-n', ns.name, '--kubeconfig', kubeconfig, '--timeout', '2s']);
    expect(waited.code).toBe(1);
    expect(waited.err).toContain('still not ready after 2s');
  });

  it('describe shows the Events recorded about the function', async () => {
    const fn = await readFn('hello');
    await core.createNamespacedEvent({
      namespace: ns.name,
      body: {
        metadata: { name: 'hello.test-1', namespace: ns.name },
        involvedObject: { apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', name: 'hello', namespace: ns.name, uid: fn.metadata!.uid },
        type: 'Warning',
        reason: 'RevisionFailed',
        message: 'hello-00001: workers keep exiting',
        count: 2,
        firstTimestamp: new Date(Date.now() - 60_000),
        lastTimestamp: new Date(),
        source: { component: 'orrery-operator' },
      },
    });
    const d = await orrery(['describe', 'function', 'hello', '-n', ns.name, '--kubeconfig', kubeconfig]);
    expect(d.code, d.err).toBe(0);
    expect(d.out).toMatch(/Source:\s+configmap hello-code-[0-9a-f]{10}\/index.mjs/);
    expect(d.out).toMatch(/Events:\n\s+LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE\n\s+\d+s\s+Warning\s+RevisionFailed\s+Function\/hello\s+hello-00001: workers keep exiting \(x2\)/);
    expect(d.out).toContain('Worker errors:\n  <none>');
  });

  it('delete removes the Function and the code ConfigMaps deploy wrote', async () => {
    expect(await orrery(['delete', 'function', 'hello', 'web', '-n', ns.name, '--kubeconfig', kubeconfig])).toMatchObject({ code: 0, out: 'function.orrery.dev/hello deleted\nfunction.orrery.dev/web deleted\n' });
    const cms = await core.listNamespacedConfigMap({ namespace: ns.name, labelSelector: 'orrery.dev/function=hello' });
    expect(cms.items).toEqual([]);
    expect((await orrery(['delete', 'function', 'hello', '-n', ns.name, '--kubeconfig', kubeconfig])).code).toBe(1);
  });
});
