/**
 * Python functions on the local platform (docs/python.md): a real operator, router and statesvc
 * (testing/platform.ts). The Environment's image picks the runtime: `orrery/runtime-python` runs
 * apps/runtime-python on python3 for a deploy-executor Function and for the pool executor (a warm
 * python3 worker specialized on the cold request, with state), while an image with no local runtime
 * leaves its Environment and revisions not Ready with a reason, and starts nothing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Condition, Environment } from '@orrery/spec';
import { type Platform, revisionReady, startPlatform } from '../../testing/platform.ts';
import { until } from '../../testing/spawn-server.ts';

const TOKEN = 'python-runtime-test-store-token';
const EXAMPLES = join(import.meta.dirname, '..', '..', '..', '..', '..', 'examples', 'python');
const example = <T>(file: string): T => parse(readFileSync(join(EXAMPLES, file), 'utf8')) as T;
type Workers = { pids: number[]; pool: { warm: Record<string, number> } };

describe('Python functions on the local backend (real processes)', () => {
  let p: Platform;
  const workers = async (): Promise<Workers> => (await (await fetch(`${p.op.url}/v1/workers`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as Workers;
  const ready = (conditions: readonly Condition[] | undefined) => conditions?.find((c) => c.type === 'Ready');

  beforeAll(async () => {
    p = await startPlatform({ operatorArgs: ['--pool-size', '1'], storeToken: TOKEN, keyspaces: [{ namespace: 'default', keyspace: 'counter-py' }] });
    const env = example<Environment>('environment.yaml');
    await p.store.apply({ ...env, spec: { ...env.spec, poolSize: 1 } });
    await p.store.apply(example('counter/function.yaml'));
    await p.store.apply({
      apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', metadata: { name: 'hello-py', namespace: 'default' },
      spec: { template: { environment: 'python', executor: 'deploy', source: { inline: 'import os, sys\n\ndef handler(request, ctx):\n    return {"hello": request.query.get("name", "world"), "revision": ctx.revision, "python": sys.version_info[0], "pid": os.getpid()}\n' } } },
    });
    await p.store.apply({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Environment', metadata: { name: 'ruby', namespace: 'default' }, spec: { image: 'acme/ruby:3.3', poolSize: 1 } });
    await p.store.apply({
      apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', metadata: { name: 'gem', namespace: 'default' },
      spec: { template: { environment: 'ruby', executor: 'deploy', source: { inline: 'puts 1' } } },
    });
    await p.store.apply({
      apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', metadata: { name: 'gem-pool', namespace: 'default' },
      spec: { template: { environment: 'ruby', executor: 'pool', timeoutSeconds: 2, source: { inline: 'puts 1' } } },
    });
    // The router reads routes from a file the test writes once every revision exists.
    for (const name of ['hello-py-00001', 'counter-py-00001', 'gem-00001', 'gem-pool-00001']) await until(() => p.revision(name), (r) => r !== undefined, 20_000, `${name} created`);
    await p.publishRoutes();
  }, 60_000);

  afterAll(async () => {
    await p?.stop();
  }, 30_000);

  it('a deploy-executor Function on the python Environment becomes Ready and answers through the router', { timeout: 30_000 }, async () => {
    const rev = await revisionReady(p, 'hello-py-00001', 25_000);
    expect(ready(rev.status?.conditions)).toMatchObject({ status: 'True', reason: 'WorkersReady' });
    const res = await until(() => fetch(`${p.routerUrl}/default/hello-py/?name=py`), (r) => r.status === 200, 15_000, 'hello-py answers');
    const body = (await res.json()) as { hello: string; revision: string; python: number; pid: number };
    expect(body).toMatchObject({ hello: 'py', revision: 'hello-py-00001', python: 3 });
    // The worker is the operator's python3 child, not a Node runtime.
    expect((await workers()).pids).toContain(body.pid);
    expect(readFileSync(`/proc/${body.pid}/cmdline`, 'utf8').split('\0')).toEqual(expect.arrayContaining(['-I', '-B', expect.stringMatching(/apps\/runtime-python\/orrery-runtime-python\.py$/), '--function', 'hello-py']));
  });

  it('the pool executor specializes a warm python3 worker for examples/python/counter, with its state', { timeout: 30_000 }, async () => {
    await revisionReady(p, 'counter-py-00001', 20_000);
    await until(workers, (w) => w.pool.warm['default/python'] === 1, 20_000, 'one warm python worker');
    const post = async () => ((await (await fetch(`${p.routerUrl}/default/counter-py/?key=visits`, { method: 'POST' })).json()) as { count: number }).count;
    expect(await post()).toBe(1);
    expect(await post()).toBe(2);
    expect(await (await fetch(`${p.routerUrl}/default/counter-py/?key=visits`)).json()).toMatchObject({ key: 'visits', count: 2 });
  });

  it('an image with no local runtime: Environment and revision not Ready with the reason, no worker started', { timeout: 30_000 }, async () => {
    const rev = await until(() => p.revision('gem-00001'), (r) => ready(r?.status?.conditions)?.status === 'False', 20_000, 'gem-00001 not Ready');
    expect(ready(rev!.status?.conditions)).toMatchObject({ reason: 'ImageNotRunnableLocally', message: expect.stringContaining('image "acme/ruby:3.3" has no local runtime') });
    expect(rev!.status).toMatchObject({ readyWorkers: 0, actualScale: 0 });
    // The pool executor: not Ready either; the executor refuses its cold path with the reason (the
    // router's request waits out the revision's timeout), and no warm worker starts.
    const pooled = await until(() => p.revision('gem-pool-00001'), (r) => ready(r?.status?.conditions)?.status === 'False', 20_000, 'gem-pool-00001 not Ready');
    expect(ready(pooled!.status?.conditions)).toMatchObject({ reason: 'ImageNotRunnableLocally' });
    const specialize = await fetch(`${p.op.url}/v1/executor/specialize`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ namespace: 'default', function: 'gem-pool', revision: 'gem-pool-00001' }),
    });
    expect(specialize.status).toBe(422);
    expect(await specialize.json()).toMatchObject({ code: 'runtime_unavailable', error: expect.stringContaining('image "acme/ruby:3.3" has no local runtime') });
    expect((await fetch(`${p.routerUrl}/default/gem-pool/`)).status).toBe(504);
    expect((await workers()).pool.warm['default/ruby'] ?? 0).toBe(0);
    const env = await until(() => p.store.get('Environment', 'default', 'ruby') as Promise<Environment | undefined>, (e) => ready(e?.status?.conditions)?.status === 'False', 20_000, 'ruby Environment not Ready');
    expect(ready(env!.status?.conditions)).toMatchObject({ reason: 'ImageNotRunnableLocally' });
    // The python Environment is fine.
    const python = (await p.store.get('Environment', 'default', 'python')) as Environment;
    expect(ready(python.status?.conditions)?.status).toBe('True');
  });
});
