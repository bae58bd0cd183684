import { describe, expect, it } from 'vitest';
import { parseTargetsFile } from './targets-file.ts';

const parse = (v: unknown) => parseTargetsFile(typeof v === 'string' ? v : JSON.stringify(v), 'cn-sh', 'own-token');

describe('parseTargetsFile', () => {
  it('reads targets, defaulting clusterId to the region and token to our replication token', () => {
    expect(parse({ targets: [{ region: 'cn-bj', url: 'http://10.0.0.21:8080/', namespaces: ['prod', 'staging', 'prod'] }, { region: 'eu', url: 'https://r.eu:443', namespaces: ['prod'], clusterId: '300', token: 't' }] })).toEqual({
      ok: true,
      value: [
        { region: 'cn-bj', url: 'http://10.0.0.21:8080', namespaces: ['prod', 'staging'], clusterId: 'cn-bj', token: 'own-token' },
        { region: 'eu', url: 'https://r.eu:443', namespaces: ['prod'], clusterId: '300', token: 't' },
      ],
    });
    expect(parse({ targets: [] })).toEqual({ ok: true, value: [] });
  });

  it.each([
    ['not JSON', '{', /^replication targets file is not JSON/],
    ['no targets', {}, /^replication targets file: targets /],
    ['no namespaces', { targets: [{ region: 'b', url: 'http://h:1', namespaces: [] }] }, /targets\.0\.namespaces/],
    ['a bad namespace', { targets: [{ region: 'b', url: 'http://h:1', namespaces: ['Prod'] }] }, /lowercase DNS label/],
    ['a URL with a path', { targets: [{ region: 'b', url: 'http://h:1/api', namespaces: ['p'] }] }, /targets\.0\.url must be http\(s\):\/\/host:port/],
    ['an unknown field', { targets: [{ region: 'b', url: 'http://h:1', namespaces: ['p'], zone: 'x' }] }, /targets\.0/],
    ['its own region', { targets: [{ region: 'cn-sh', url: 'http://h:1', namespaces: ['p'] }] }, /"cn-sh" is this registry's own region/],
    ['a region twice', { targets: [{ region: 'b', url: 'http://h:1', namespaces: ['p'] }, { region: 'b', url: 'http://h:2', namespaces: ['p'] }] }, /"b" is listed twice/],
  ])('refuses %s, saying what is wrong', (_, v, message) => {
    const r = parse(v);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toMatch(message);
  });
});
