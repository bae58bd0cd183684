import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { EndpointRecord } from '../admit/endpoint-index.ts';
import type { RevisionRoute } from '../routing/route-table.ts';
import { PoolSpecializer } from './pool-specializer.ts';

const rev: RevisionRoute = { namespace: 'ns', function: 'f', revision: 'f-00001', key: 'ns/f-00001', containerConcurrency: 0, timeoutMs: 1000, replayOnWorkerLoss: false };
const flush = () => new Promise((r) => setTimeout(r, 0));

function setup(answer: { status: number; body: unknown }) {
  const calls: unknown[] = [];
  const added: EndpointRecord[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const s = new PoolSpecializer({
    executorUrl: 'http://op',
    onAddress: (r) => added.push(r),
    log: () => {},
    post: async (url, body) => {
      calls.push({ url, body });
      await gate;
      return answer;
    },
  });
  return { s, calls, added, release };
}

describe('PoolSpecializer', () => {
  it('one call per revision while it is in flight; the answered address is admitted', async () => {
    const { s, calls, added, release } = setup({ status: 200, body: { address: '127.0.0.1:5000' } });
    s.coldRequest(rev);
    s.coldRequest(rev);
    expect(calls).toEqual([{ url: 'http://op/v1/executor/specialize', body: { namespace: 'ns', function: 'f', revision: 'f-00001' } }]);
    release();
    await flush();
    await flush();
    expect(added).toEqual([{ namespace: 'ns', function: 'f', revision: 'f-00001', address: '127.0.0.1:5000', ready: true }]);
    s.coldRequest(rev); // done: a later cold request asks again
    expect(calls).toHaveLength(2);
  });

  it('remembers a revision that is not pooled', async () => {
    const { s, calls, added, release } = setup({ status: 409, body: { code: 'not_pool_executor' } });
    release();
    s.coldRequest(rev);
    await flush();
    await flush();
    s.coldRequest(rev);
    expect(calls).toHaveLength(1);
    expect(added).toEqual([]);
  });

  it('other errors are retried by the next cold request', async () => {
    const { s, calls, release } = setup({ status: 503, body: { code: 'pool_empty', error: 'no warm worker' } });
    release();
    s.coldRequest(rev);
    await flush();
    await flush();
    s.coldRequest(rev);
    expect(calls).toHaveLength(2);
  });

  it('sends the operator token as a bearer token (the operator refuses specialize without it)', async () => {
    const seen: Array<string | undefined> = [];
    const op = createServer((req, res) => {
      seen.push(req.headers.authorization);
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ address: '127.0.0.1:5001' }));
    });
    await new Promise<void>((r) => op.listen(0, '127.0.0.1', r));
    try {
      const added: EndpointRecord[] = [];
      const s = new PoolSpecializer({ executorUrl: `http://127.0.0.1:${(op.address() as AddressInfo).port}`, token: 'tok-1', onAddress: (r) => added.push(r), log: () => {} });
      s.coldRequest(rev);
      for (let i = 0; i < 200 && !added.length; i++) await new Promise((r) => setTimeout(r, 10));
      expect(seen).toEqual(['Bearer tok-1']);
      expect(added.map((a) => a.address)).toEqual(['127.0.0.1:5001']);
    } finally {
      op.closeAllConnections();
      await new Promise<void>((r) => op.close(() => r()));
    }
  });

  it('runs the fallback (the poke) for a revision that is not pooled, at once once known, and never for a pooled one', async () => {
    const notPooled = setup({ status: 409, body: { code: 'not_pool_executor' } });
    let pokes = 0;
    notPooled.s.coldRequest(rev, () => pokes++);
    expect(pokes).toBe(0); // waits for the executor's answer
    notPooled.release();
    await flush();
    await flush();
    expect(pokes).toBe(1);
    notPooled.s.coldRequest(rev, () => pokes++);
    expect(pokes).toBe(2); // remembered: no second call
    expect(notPooled.calls).toHaveLength(1);

    const pooled = setup({ status: 200, body: { address: '127.0.0.1:5000' } });
    let pooledPokes = 0;
    pooled.s.coldRequest(rev, () => pooledPokes++);
    pooled.release();
    await flush();
    await flush();
    expect(pooledPokes).toBe(0);
    expect(pooled.added).toHaveLength(1);
  });
});
