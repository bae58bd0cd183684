import { describe, expect, it } from 'vitest';
import type { EndpointRecord } from '../admit/endpoint-index.ts';
import type { RevisionRoute } from '../routing/route-table.ts';
import { PoolSpecializer } from './pool-specializer.ts';

const rev: RevisionRoute = { namespace: 'ns', function: 'f', revision: 'f-00001', key: 'ns/f-00001', containerConcurrency: 0, timeoutMs: 1000 };
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
});
