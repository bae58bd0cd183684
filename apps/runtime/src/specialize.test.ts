import { describe, expect, it } from 'vitest';
import type { FunctionAssignment } from './activate-function.ts';
import { LoadError } from './load/load-error.ts';
import { createSpecializer, parseSpecializeRequest } from './specialize.ts';

const body = { namespace: 'shop', function: 'counter', revision: 'counter-00001', source: { inline: 'export default () => new Response("x")' } };

describe('parseSpecializeRequest', () => {
  it('fills defaults', () => {
    expect(parseSpecializeRequest(body)).toEqual({
      ok: true,
      assignment: { ...body, entrypoint: undefined, containerConcurrency: 0, timeoutSeconds: 300, state: undefined },
    });
  });

  it('takes state credentials with the worker default state URL', () => {
    const p = parseSpecializeRequest({ ...body, stateCredentials: { namespace: 'shop', keyspace: 'c', token: 't' } }, 'http://statesvc');
    expect(p).toMatchObject({ ok: true, assignment: { state: { url: 'http://statesvc', credentials: { namespace: 'shop', keyspace: 'c', token: 't' } } } });
  });

  it('takes stateFencing (a boolean, with state credentials only)', () => {
    const creds = { stateCredentials: { namespace: 'shop', keyspace: 'c', token: 't' } };
    expect(parseSpecializeRequest({ ...body, ...creds, stateFencing: true }, 'http://statesvc')).toMatchObject({ ok: true, assignment: { state: { fencing: true } } });
    const off = parseSpecializeRequest({ ...body, ...creds }, 'http://statesvc');
    expect(off.ok && off.assignment.state?.fencing).toBeFalsy();
    expect(parseSpecializeRequest({ ...body, ...creds, stateFencing: 'yes' }, 'http://statesvc')).toMatchObject({ ok: false, error: expect.stringMatching(/stateFencing must be true or false/) });
    expect(parseSpecializeRequest({ ...body, stateFencing: true }, 'http://statesvc')).toMatchObject({ ok: false, error: expect.stringMatching(/stateFencing needs stateCredentials/) });
  });

  it('takes the registry credential for exactly this revision, and refuses one for another', () => {
    const token = 'cd'.repeat(32);
    const ok = parseSpecializeRequest({ ...body, registryCredential: { namespace: 'shop', service: 'orrery.functions.shop.counter.counter-00001', token } });
    expect(ok).toMatchObject({ ok: true, assignment: { registryCredential: token } });
    const other = parseSpecializeRequest({ ...body, registryCredential: { namespace: 'shop', service: 'orrery.functions.shop.counter.counter-00002', token } });
    expect(other.ok).toBe(false);
    expect((other as { error: string }).error).toContain('registryCredential is for shop/orrery.functions.shop.counter.counter-00002');
    expect((other as { error: string }).error).not.toContain(token);
  });

  it('takes the template env, refusing platform names and non-string values (never echoing values)', () => {
    expect(parseSpecializeRequest({ ...body, env: { API_KEY: 's3cret', 'a.b-c': '' } })).toMatchObject({ ok: true, assignment: { env: { API_KEY: 's3cret', 'a.b-c': '' } } });
    expect(parseSpecializeRequest({ ...body, env: {} })).toMatchObject({ ok: true, assignment: expect.not.objectContaining({ env: expect.anything() }) });
    const bad = parseSpecializeRequest({ ...body, env: { ORRERY_STATE_TOKEN: 'x', '1X': 'y', N: 3 } });
    expect(bad.ok).toBe(false);
    const error = (bad as { error: string }).error;
    for (const part of ['"ORRERY_STATE_TOKEN" is not allowed', '"1X" is not allowed', 'env N must be a string']) expect(error).toContain(part);
    expect(parseSpecializeRequest({ ...body, env: ['A=1'] }).ok).toBe(false);
  });

  it('takes a built package folder (dir, optional main), as deploy mode takes --source-dir/--source-main', () => {
    expect(parseSpecializeRequest({ ...body, source: { dir: '/data/packages/built/k1' } })).toMatchObject({ ok: true, assignment: { source: { dir: '/data/packages/built/k1' } } });
    const withMain = parseSpecializeRequest({ ...body, source: { dir: '/pkgs/built/k1', main: 'src/handler.mjs' } });
    expect(withMain.ok && withMain.assignment.source).toEqual({ dir: '/pkgs/built/k1', main: 'src/handler.mjs' });
  });

  it('refuses a package source that is relative, escapes its folder, or mixes kinds (400 words)', () => {
    const error = (source: unknown) => {
      const p = parseSpecializeRequest({ ...body, source });
      expect(p.ok, JSON.stringify(source)).toBe(false);
      return (p as { error: string }).error;
    };
    expect(error({ dir: 'built/k1' })).toContain('source.dir must be the absolute path of the built package folder');
    expect(error({ dir: '/p\0x' })).toContain('source.dir must be the absolute path');
    for (const main of ['../other/index.mjs', 'a/../../x.mjs', '/etc/passwd', 'a\\..\\..\\x', '', 3, 'C:/x.mjs']) {
      expect(error({ dir: '/pkgs/built/k1', main })).toContain('source.main must be a path relative to source.dir, without ".."');
    }
    expect(error({ inline: 'x', main: 'index.mjs' })).toContain('source.main goes with source.dir');
    expect(error({ dir: '/pkgs/built/k1', inline: 'x' })).toContain('exactly one of inline, url, file or dir');
    expect(error({ dir: '' })).toContain('exactly one of inline, url, file or dir');
  });

  it('lists every problem', () => {
    const p = parseSpecializeRequest({ source: { inline: 'a', url: 'b' }, containerConcurrency: -1, stateCredentials: { token: 't' } });
    expect(p.ok).toBe(false);
    const error = (p as { error: string }).error;
    for (const part of ['function', 'revision', 'exactly one of inline', 'containerConcurrency', 'stateCredentials must be', 'stateUrl']) expect(error).toContain(part);
    expect(parseSpecializeRequest([])).toEqual({ ok: false, error: 'body must be a JSON object' });
  });
});

describe('createSpecializer', () => {
  it('activates once; any later call is refused (already_specialized)', async () => {
    const activations: FunctionAssignment[] = [];
    const specialize = createSpecializer({
      activate: async (a) => {
        activations.push(a);
        return { address: '127.0.0.1:9' };
      },
    });
    expect(await specialize(body)).toMatchObject({ status: 200, body: { specialized: true, revision: 'counter-00001', address: '127.0.0.1:9' } });
    expect(await specialize(body)).toMatchObject({ status: 409, body: { code: 'already_specialized' } });
    expect(await specialize({ ...body, revision: 'counter-00002' })).toMatchObject({ status: 409, body: { code: 'already_specialized' } });
    expect(activations).toHaveLength(1);
  });

  it('a bad body or a load failure answers 400/422 and leaves the worker spent', async () => {
    let failed = 0;
    const bad = createSpecializer({ activate: async () => ({ address: 'h:1' }), onFailed: () => failed++ });
    expect(await bad({ nope: 1 })).toMatchObject({ status: 400, body: { code: 'bad_request' } });
    expect(failed).toBe(1);
    const specialize = createSpecializer({
      activate: async () => {
        throw new LoadError('entrypoint_not_found', 'no export named "x"');
      },
      onFailed: () => failed++,
    });
    expect(await specialize(body)).toMatchObject({ status: 422, body: { code: 'entrypoint_not_found' } });
    expect(failed).toBe(2);
    expect(await specialize({ ...body, revision: 'counter-00009' })).toMatchObject({ status: 409 });
  });
});
