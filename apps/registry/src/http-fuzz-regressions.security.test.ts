/**
 * What the registry's HTTP fuzz (http-fuzz.security.test.ts) found, kept as fixed cases against
 * the real `orrery-registry` process on a real etcd, each with the exact bytes that broke it.
 */
import { EtcdCluster, waitFor } from '@orrery/etcdcluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerProblem } from './testing/answer-contract.ts';
import { spawnRegistry, TOKENS, type RegistryProcess } from './testing/fixture.ts';
import { rawExchange, rawOpen, type RawAnswer } from './testing/raw-http.ts';

let etcd: EtcdCluster;
let registry: RegistryProcess;

beforeAll(async () => {
  etcd = await EtcdCluster.start({ size: 1 });
  registry = await spawnRegistry(etcd.endpoints());
}, 120_000);

afterAll(async () => {
  await registry?.stop();
  await etcd?.close();
}, 60_000);

const port = (url: string): number => Number(new URL(url).port);

async function send(listener: 'public' | 'admin', text: string): Promise<RawAnswer[]> {
  const { answers } = await rawExchange(Buffer.from(text, 'latin1'), { host: '127.0.0.1', port: port(listener === 'admin' ? registry.adminUrl : registry.httpUrl) });
  return answers;
}

async function metricsCount(route: string, code: string): Promise<number> {
  const text = await (await fetch(`${registry.httpUrl}/metrics`)).text();
  const m = new RegExp(`^orrery_registry_requests_total\\{route="${route}",code="${code}"\\} (\\d+)`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}

function expectAliveAndHealthy(): Promise<void> {
  expect(registry.child.exitCode, registry.stderr().slice(-2000)).toBeNull();
  return fetch(`${registry.httpUrl}/healthz`).then((r) => expect(r.status).toBe(200));
}

describe('registry HTTP inputs the fuzz broke', () => {
  it('an absolute-form request target that is not a URL is a 400, not the end of the process', { timeout: 30_000 }, async () => {
    for (const target of ['http://', 'http://[', 'http://a:b@[::1', 'https://x:99999/healthz']) {
      const [a] = await send('public', `GET ${target} HTTP/1.1\r\nHost: registry\r\n\r\n`);
      expect(a, `GET ${target}`).toBeDefined();
      expect(answerProblem(a!), `GET ${target}: ${a!.body}`).toBeUndefined();
      expect([a!.status, JSON.parse(a!.body).code]).toEqual([400, 'bad_request']);
      await expectAliveAndHealthy();
    }
    // The admin listener parses its target too, after the caller is authenticated.
    const [admin] = await send('admin', `GET http://[ HTTP/1.1\r\nHost: registry\r\nAuthorization: Bearer ${TOKENS.admin}\r\n\r\n`);
    expect([admin!.status, JSON.parse(admin!.body).code]).toEqual([400, 'bad_request']);
    const [anonymous] = await send('admin', 'GET http://[ HTTP/1.1\r\nHost: registry\r\n\r\n');
    expect([anonymous!.status, JSON.parse(anonymous!.body).code]).toEqual([401, 'unauthorized']);
    await expectAliveAndHealthy();
  });

  it("a request Node's parser refuses, one without Host, or with an unmet Expect is answered with the envelope, not Node's bare 400/417", { timeout: 30_000 }, async () => {
    const cases: Array<[string, string, number, string]> = [
      ['a space in a header name', 'GET /healthz HTTP/1.1\r\nHost: registry\r\nBad Header: x\r\n\r\n', 400, 'bad_request'],
      ['no Host', 'GET /api/v1/registry/watch?namespace=fz HTTP/1.1\r\nAccept: text/event-stream\r\n\r\n', 400, 'bad_request'],
      ['two Content-Length', 'POST /api/v1/registry/register HTTP/1.1\r\nHost: registry\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}', 400, 'bad_request'],
      ['a body cut short by the end of the stream', 'POST /api/v1/registry/register HTTP/1.1\r\nHost: registry\r\nContent-Length: 30\r\n\r\n{"a":', 400, 'bad_request'],
      ['headers over 16 KiB', `GET /healthz HTTP/1.1\r\nHost: registry\r\nX-Big: ${'h'.repeat(17_000)}\r\n\r\n`, 400, 'bad_request'],
      ['a NUL in the request line', 'GET /api/v1/registry/instances?namespace=fz\u0000 HTTP/1.1\r\nHost: registry\r\n\r\n', 400, 'bad_request'],
      ['Expect other than 100-continue', 'POST /api/v1/registry/register HTTP/1.1\r\nHost: registry\r\nExpect: teapot\r\nContent-Length: 2\r\n\r\n{}', 400, 'bad_request'],
    ];
    for (const listener of ['public', 'admin'] as const) {
      for (const [what, text, status, code] of cases) {
        // On the admin listener: its routes, as the authenticated caller (it refuses anyone else first).
        const adminText = () =>
          text
            .replace('/api/v1/registry/register', '/admin/v1/members/promote')
            .replace(/\/healthz|\/api\/v1\/registry\/\w+\?namespace=fz/, '/admin/v1/status')
            .replace('\r\n', `\r\nAuthorization: Bearer ${TOKENS.admin}\r\n`);
        const answers = await send(listener, listener === 'admin' ? adminText() : text);
        expect(answers.length, `${listener}: ${what}`).toBeGreaterThan(0);
        const a = answers[0]!;
        expect(answerProblem(a, { trustedAdmin: true }), `${listener}: ${what}: ${JSON.stringify(a)}`).toBeUndefined();
        expect([a.status, JSON.parse(a.body).code], `${listener}: ${what}`).toEqual([status, code]);
      }
    }
    const metrics = await (await fetch(`${registry.httpUrl}/metrics`)).text();
    expect(metrics).toMatch(/^orrery_registry_requests_total\{route="malformed",code="bad_request"\} [1-9]/m);
    await expectAliveAndHealthy();
  });

  it('a client that goes away in the middle of a body is its failure (400), not a 503 propose_failed of the registry', { timeout: 30_000 }, async () => {
    for (const route of ['register', 'heartbeat', 'deregister']) {
      const before = { proposeFailed: await metricsCount(route, 'propose_failed'), badRequest: await metricsCount(route, 'bad_request') };
      // Content-Length promises 40 bytes, 12 arrive, then the connection is reset (no FIN).
      const bytes = Buffer.from(`POST /api/v1/registry/${route} HTTP/1.1\r\nHost: registry\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{"namespace"`);
      const { answers } = await rawExchange(bytes, { host: '127.0.0.1', port: port(registry.httpUrl), firstByteMs: 100, abandon: true });
      expect(answers).toEqual([]);
      await waitFor(`${route}'s abandoned request counted`, 5_000, async () => ((await metricsCount(route, 'bad_request')) > before.badRequest ? true : undefined));
      expect(await metricsCount(route, 'propose_failed'), `${route} counted the client's disconnect as a failed write`).toBe(before.proposeFailed);
    }
    await expectAliveAndHealthy();
  });

  it('a register whose endpoint name is nested past V8\'s recursion limit is a 400, not a 503 quoting "Maximum call stack size exceeded"', { timeout: 30_000 }, async () => {
    for (const nested of [`${'['.repeat(6_000)}${']'.repeat(6_000)}`, `${'{"a":'.repeat(6_000)}1${'}'.repeat(6_000)}`]) {
      const body = `{"namespace":"fz","service":"company.fuzz.order.oc.api","instanceId":"i1","endpoints":[{"protocol":"http","host":"10.0.0.1","port":8080,"name":${nested}}]}`;
      const [a] = await send('public', `POST /api/v1/registry/register HTTP/1.1\r\nHost: registry\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
      expect(answerProblem(a!), a!.body).toBeUndefined();
      expect(JSON.parse(a!.body)).toMatchObject({ code: 'bad_request', message: expect.stringContaining('endpoints[0].name must be') });
    }
    expect(await metricsCount('register', 'propose_failed')).toBe(0);
    await expectAliveAndHealthy();
  });

  it('a watch pipelined behind another request gives its slot back when the connection goes (it leaked, and enough leaks lock every watcher out)', { timeout: 30_000 }, async () => {
    const watchStreams = async (): Promise<number> => {
      const res = await fetch(`${registry.adminUrl}/admin/v1/replication/status`, { headers: { authorization: `Bearer ${TOKENS.admin}` } });
      return ((await res.json()) as { data: { registry: { watchStreams: number } } }).data.registry.watchStreams;
    };
    const watch = 'GET /api/v1/registry/watch?namespace=fz HTTP/1.1\r\nHost: registry\r\n\r\n';
    for (const first of [watch, 'GET /internal/v1/replication/watch?namespace=fz HTTP/1.1\r\nHost: registry\r\nAuthorization: Bearer ' + TOKENS.replication + '\r\n\r\n']) {
      // The second response waits behind the first stream, which never ends; then the client goes.
      const s = rawOpen(Buffer.from(first + watch), { host: '127.0.0.1', port: port(registry.httpUrl) });
      await waitFor('both watches admitted', 5_000, async () => ((await watchStreams()) === 2 ? true : undefined));
      s.destroy();
      await waitFor('both slots returned', 5_000, async () => ((await watchStreams()) === 0 ? true : undefined), () => 'a slot is still held');
    }
    await expectAliveAndHealthy();
  });
});
