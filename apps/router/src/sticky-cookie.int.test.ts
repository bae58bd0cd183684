/**
 * `sticky.source: cookie` through real `orrery-router` processes (issue 21 item 8b), on both
 * ingresses (the raw one and node:http hand the data plane their raw header lines differently):
 * the cookie's value is the key — the same worker as the same key sent in a header — other
 * cookies, quotes and a second Cookie line do not change it, names are exact, a request without
 * the cookie takes the default pick and is counted as a missing key, and a key that moves counts
 * one teleport.
 */
import { Pool, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointsYaml, eventually, functionYaml, ProcessGroup, type RouterStatsJson } from './testing/processes.ts';

const g = new ProcessGroup();
const upstreams: Record<string, string> = {};
const KEYS = Array.from({ length: 24 }, (_, i) => `user-${i}`);

beforeAll(async () => {
  for (const name of ['c1', 'c2', 'c3']) upstreams[name] = (await g.upstream(name)).address;
}, 60_000);

afterAll(async () => {
  await g.stopAll();
});

function endpoints(names: string[]): string {
  return endpointsYaml(
    names.flatMap((n) => [
      { fn: 'bycookie', rev: 'bycookie-00001', address: upstreams[n]! },
      { fn: 'byheader', rev: 'byheader-00001', address: upstreams[n]! },
    ]),
  );
}

describe.each(['raw', 'node'])('sticky.source cookie (--ingress %s)', (ingress) => {
  let url: string;
  let admin: string;
  let pool: Pool;
  const endpointsFile = `endpoints-${ingress}.yaml`;

  beforeAll(async () => {
    const routes = g.write(
      `routes-${ingress}.yaml`,
      functionYaml({ name: 'bycookie', revisions: ['bycookie-00001'], sticky: '{source: cookie, name: sid}' }) +
        functionYaml({ name: 'byheader', revisions: ['byheader-00001'], sticky: '{source: header, name: X-Sid}' }),
    );
    const r = await g.router(['--ingress', ingress, '--routes-file', routes, '--endpoints-file', g.write(endpointsFile, endpoints(['c1', 'c2', 'c3']))]);
    ({ url, admin } = r);
    pool = new Pool(url, { connections: 4 });
    await waitEndpoints(6);
  }, 60_000);

  afterAll(async () => {
    await pool.close();
  });

  const stats = async (): Promise<RouterStatsJson> => (await (await request(`${admin}/v1/stats`)).body.json()) as RouterStatsJson;
  const cookieStats = async () => (await stats()).functions.find((f) => f.function === 'bycookie') ?? { teleports: 0, stickyRequests: 0, stickyKeyMissing: 0 };
  async function waitEndpoints(n: number): Promise<void> {
    await eventually(async () => ((await stats()).endpoints.length === n ? true : undefined), `${n} endpoints`);
  }

  /** The worker that answered; `headers` as undici sends them (a flat array keeps repeated Cookie lines). */
  async function workerFor(path: string, headers: Record<string, string> | string[]): Promise<string> {
    const res = await pool.request({ path, method: 'GET', headers });
    await res.body.dump();
    expect(res.statusCode).toBe(200);
    return res.headers['x-upstream'] as string;
  }

  it('the cookie’s value is the key: each key lands where the same key sent in a header lands, every time', { timeout: 60_000 }, async () => {
    const before = await cookieStats();
    const owners = new Set<string>();
    for (const key of KEYS) {
      const byHeader = await workerFor('/default/byheader/', { 'x-sid': key });
      owners.add(byHeader);
      expect(await workerFor('/default/bycookie/', { cookie: `sid=${key}` })).toBe(byHeader);
      expect(await workerFor('/default/bycookie/', { cookie: `theme=dark; sid=${key}; lang=en` })).toBe(byHeader);
      expect(await workerFor('/default/bycookie/', { cookie: `sid="${key}"` })).toBe(byHeader);
      // Only the first Cookie line carries sid; an HTTP/2 hop may split one Cookie header into several.
      expect(await workerFor('/default/bycookie/', ['cookie', 'theme=dark', 'cookie', `sid=${key}`])).toBe(byHeader);
    }
    expect(owners.size).toBeGreaterThan(1); // the keys spread: the equality above means something
    const after = await cookieStats();
    expect(after.stickyRequests - before.stickyRequests).toBe(4 * KEYS.length);
    expect(after.stickyKeyMissing - before.stickyKeyMissing).toBe(0);
    expect(after.teleports - before.teleports).toBe(0);
  });

  it('without the cookie (or with another name, case or an empty value) the default pick serves it and counts a missing key', { timeout: 60_000 }, async () => {
    const before = await cookieStats();
    await workerFor('/default/bycookie/', {});
    await workerFor('/default/bycookie/', { cookie: 'SID=user-1' }); // cookie names are case-sensitive
    await workerFor('/default/bycookie/', { cookie: 'xsid=user-1; sidx=user-2' });
    await workerFor('/default/bycookie/', { cookie: 'sid=' });
    await workerFor('/default/bycookie/?sid=user-1', { 'x-sid': 'user-1' }); // other sources do not count
    const after = await cookieStats();
    expect(after.stickyKeyMissing - before.stickyKeyMissing).toBe(5);
    expect(after.stickyRequests - before.stickyRequests).toBe(0);
  });

  it('a key whose worker leaves moves once (one teleport) and stays on its new worker', { timeout: 60_000 }, async () => {
    const owner = await workerFor('/default/bycookie/', { cookie: 'sid=user-7' });
    const before = await cookieStats();
    g.write(endpointsFile, endpoints(['c1', 'c2', 'c3'].filter((n) => n !== owner)));
    await waitEndpoints(4);
    const moved = await workerFor('/default/bycookie/', { cookie: 'sid=user-7' });
    expect(moved).not.toBe(owner);
    for (let i = 0; i < 3; i++) expect(await workerFor('/default/bycookie/', { cookie: 'lang=en; sid=user-7' })).toBe(moved);
    expect((await cookieStats()).teleports - before.teleports).toBe(1);
    g.write(endpointsFile, endpoints(['c1', 'c2', 'c3']));
    await waitEndpoints(6);
  });
});
