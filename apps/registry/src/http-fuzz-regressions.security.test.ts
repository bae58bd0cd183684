/**
 * What the registry's HTTP fuzz (http-fuzz.security.test.ts) found, kept as fixed cases against
 * the real `orrery-registry` process on a real etcd, each with the exact bytes that broke it.
 */
import { EtcdCluster } from '@orrery/etcdcluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerProblem } from './testkit/answer-contract.ts';
import { spawnRegistry, TOKENS, type RegistryProcess } from './testkit/fixture.ts';
import { rawExchange, type RawAnswer } from './testkit/raw-http.ts';

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
});
