import { describe, expect, it } from 'vitest';
import { buildInvocation } from './invocation.ts';

const base = { routerUrl: 'http://r:8080/', function: 'counter', namespace: 'default', headers: [] as string[] };

describe('orrery invoke request', () => {
  it('GET by default to <router>/<namespace>/<function>/', () => {
    expect(buildInvocation(base)).toEqual({ ok: true, url: 'http://r:8080/default/counter/', init: { method: 'GET', headers: {} } });
  });

  it('POST with --data (JSON detected), headers, tag and path', () => {
    const r = buildInvocation({ ...base, namespace: 'shop', data: '{"a":1}', headers: ['X-Trace: abc', 'accept:text/plain'], tag: 'old', path: '/x?y=1' });
    expect(r).toEqual({
      ok: true,
      url: 'http://r:8080/shop/counter/x?y=1',
      init: { method: 'POST', headers: { 'x-trace': 'abc', accept: 'text/plain', 'orrery-tag': 'old', 'content-type': 'application/json' }, body: '{"a":1}' },
    });
    expect(buildInvocation({ ...base, data: 'hello' }).ok && (buildInvocation({ ...base, data: 'hello' }) as { init: { headers: Record<string, string> } }).init.headers['content-type']).toBe('text/plain; charset=utf-8');
  });

  it('refuses bad input with a message', () => {
    expect(buildInvocation({ ...base, function: 'Bad_Name' })).toMatchObject({ ok: false, error: expect.stringContaining('DNS-1123') as string });
    expect(buildInvocation({ ...base, headers: ['nocolon'] })).toMatchObject({ ok: false, error: expect.stringContaining('K:V') as string });
    expect(buildInvocation({ ...base, path: 'x' })).toMatchObject({ ok: false });
    expect(buildInvocation({ ...base, data: 'x', method: 'get' })).toMatchObject({ ok: false });
  });
});
