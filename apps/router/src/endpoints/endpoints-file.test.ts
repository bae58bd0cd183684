import { describe, expect, it } from 'vitest';
import { parseEndpointsYaml } from './endpoints-file.ts';

describe('endpoints file', () => {
  it('parses the list and defaults ready to true', () => {
    expect(parseEndpointsYaml('- {namespace: n, function: f, revision: f-00001, address: "127.0.0.1:80"}\n- {namespace: n, function: f, revision: f-00001, address: "[::1]:81", ready: false}\n')).toEqual([
      { namespace: 'n', function: 'f', revision: 'f-00001', address: '127.0.0.1:80', ready: true },
      { namespace: 'n', function: 'f', revision: 'f-00001', address: '[::1]:81', ready: false },
    ]);
    expect(parseEndpointsYaml('')).toEqual([]);
  });

  it('reads a JSON array (as the local operator writes it) like the same YAML, and a YAML flow list that is not JSON', () => {
    const json = '[\n{"namespace":"n","function":"f","revision":"f-00001","address":"127.0.0.1:80","ready":true},\n{"namespace":"n","function":"f","revision":"f-00001","address":"[::1]:81","ready":false}\n]\n';
    expect(parseEndpointsYaml(json)).toEqual(parseEndpointsYaml('- {namespace: n, function: f, revision: f-00001, address: "127.0.0.1:80"}\n- {namespace: n, function: f, revision: f-00001, address: "[::1]:81", ready: false}\n'));
    expect(parseEndpointsYaml('[{namespace: n, function: f, revision: f-00001, address: "127.0.0.1:80"}]')).toEqual([{ namespace: 'n', function: 'f', revision: 'f-00001', address: '127.0.0.1:80', ready: true }]);
    expect(parseEndpointsYaml('[]\n')).toEqual([]);
    expect(() => parseEndpointsYaml('[{"namespace": "n"}]')).toThrow(/endpoints\[0\]\.function/);
  });

  it('says which entry is wrong', () => {
    expect(() => parseEndpointsYaml('a: 1')).toThrow(/YAML list/);
    expect(() => parseEndpointsYaml('- {namespace: n, function: f, revision: r, address: nope}')).toThrow(/endpoints\[0\]\.address must be "host:port"/);
    expect(() => parseEndpointsYaml('- {namespace: n, revision: r, address: "a:1"}')).toThrow(/endpoints\[0\]\.function/);
  });
});
