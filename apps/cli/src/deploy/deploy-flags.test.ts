import { describe, expect, it } from 'vitest';
import { parseDeployFlags } from './deploy-flags.ts';

const ok = (positionals: string[], v: Parameters<typeof parseDeployFlags>[1]) => {
  const r = parseDeployFlags(positionals, v);
  if ('error' in r) throw new Error(r.error);
  return r;
};
const error = (positionals: string[], v: Parameters<typeof parseDeployFlags>[1]) => {
  const r = parseDeployFlags(positionals, v);
  return 'error' in r ? r.error : `no error: ${JSON.stringify(r)}`;
};

describe('orrery deploy flags', () => {
  it('maps each flag to its field; defaults: namespace default, wait 2 minutes', () => {
    expect(ok(['hello'], { code: './h.mjs' })).toEqual({ name: 'hello', namespace: 'default', codeFile: './h.mjs', wait: true, timeoutMs: 120_000 });
    expect(
      ok(['cart'], { code: 'c.mjs', env: 'python', state: 'carts', sticky: 'header:X-User', concurrency: '4', scale: '1:5', namespace: 'shop', timeout: '30s', 'no-wait': true }),
    ).toEqual({
      name: 'cart',
      namespace: 'shop',
      codeFile: 'c.mjs',
      environment: 'python',
      keyspace: 'carts',
      sticky: { source: 'header', name: 'X-User' },
      containerConcurrency: 4,
      scale: { minScale: 1, maxScale: 5 },
      wait: false,
      timeoutMs: 30_000,
    });
  });

  it('--scale: MIN:MAX, MIN: or :MAX (0 = unbounded max), N alone = exactly N', () => {
    expect(ok(['a'], { scale: '0:' }).scale).toEqual({ minScale: 0, maxScale: 0 });
    expect(ok(['a'], { scale: ':3' }).scale).toEqual({ minScale: 0, maxScale: 3 });
    expect(ok(['a'], { scale: '2' }).scale).toEqual({ minScale: 2, maxScale: 2 });
    expect(ok(['a'], { scale: '2:0' }).scale).toEqual({ minScale: 2, maxScale: 0 });
    expect(error(['a'], { scale: '5:1' })).toMatch(/--scale takes MIN:MAX/);
    expect(error(['a'], { scale: '-1:3' })).toMatch(/--scale/);
    expect(error(['a'], { scale: 'lots' })).toMatch(/--scale/);
  });

  it('--sticky: every source the spec knows; anything else says what to type', () => {
    expect(ok(['a'], { sticky: 'queryparam:user' }).sticky).toEqual({ source: 'queryparam', name: 'user' });
    expect(ok(['a'], { sticky: 'cookie:sid' }).sticky).toEqual({ source: 'cookie', name: 'sid' });
    expect(error(['a'], { sticky: 'X-User' })).toMatch(/--sticky takes SOURCE:NAME with SOURCE header \| queryparam \| cookie/);
    expect(error(['a'], { sticky: 'body:x' })).toMatch(/--sticky/);
    expect(error(['a'], { sticky: 'header:' })).toMatch(/--sticky/);
  });

  it('refuses bad names, numbers and durations before anything is sent', () => {
    expect(error([], {})).toMatch(/name the function/);
    expect(error(['a', 'b'], {})).toMatch(/one function at a time/);
    expect(error(['Hello_World'], {})).toMatch(/DNS-1123/);
    expect(error(['a'], { namespace: 'Prod' })).toMatch(/namespace "Prod"/);
    expect(error(['a'], { concurrency: '1001' })).toMatch(/--concurrency takes 0 \(unlimited\) to 1000/);
    expect(error(['a'], { concurrency: '2.5' })).toMatch(/--concurrency/);
    expect(error(['a'], { state: 'my:space' })).toMatch(/--state takes a keyspace/);
    expect(error(['a'], { env: 'Node JS' })).toMatch(/--env names an Environment/);
    expect(error(['a'], { timeout: 'soon' })).toMatch(/--timeout takes a duration/);
    expect(error(['a'], { timeout: '0' })).toMatch(/--timeout/);
    expect(error(['a'], { code: '' })).toMatch(/--code needs a file/);
  });
});
