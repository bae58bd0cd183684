import { describe, expect, it } from 'vitest';
import { adminTokenSecretName, pickOperatorService, servicesProxyTrpcUrl } from './operator-service.ts';

const operator = { name: 'orrery-operator', ports: [{ name: 'http', port: 7070 }] };
const webhook = { name: 'orrery-webhook', ports: [{ name: 'https', port: 443 }] };

describe('pickOperatorService', () => {
  it("takes the release's operator Service by its http port, never the webhook's (same label)", () => {
    expect(pickOperatorService('orrery-system', [webhook, operator])).toEqual({ namespace: 'orrery-system', name: 'orrery-operator', port: 'http' });
    expect(pickOperatorService('prod', [{ name: 'blue-orrery-operator', ports: [{ name: 'http', port: 8080 }, { name: 'metrics', port: 9090 }] }])).toEqual({ namespace: 'prod', name: 'blue-orrery-operator', port: 'http' });
  });
  it('none: says to install the chart or name the namespace', () => {
    const r = pickOperatorService('orrery-system', [webhook, { name: 'other', ports: [{ port: 80 }] }]);
    expect('error' in r && r.error).toMatch(/no Orrery operator Service in namespace orrery-system .*helm install orrery charts\/orrery -n orrery-system.*--orrery-namespace/);
  });
  it('several: names them and says what to do instead of guessing', () => {
    const r = pickOperatorService('shared', [operator, { name: 'b-orrery-operator', ports: [{ name: 'http', port: 7070 }] }]);
    expect('error' in r && r.error).toMatch(/several Orrery operator Services in namespace shared \(orrery-operator, b-orrery-operator\).*--api-url/);
  });
});

describe('servicesProxyTrpcUrl', () => {
  it('is the services proxy path of the named http port, /trpc under it', () => {
    expect(servicesProxyTrpcUrl('https://10.0.0.1:6443', { namespace: 'orrery-system', name: 'orrery-operator', port: 'http' })).toBe(
      'https://10.0.0.1:6443/api/v1/namespaces/orrery-system/services/http:orrery-operator:http/proxy/trpc',
    );
  });
  it("keeps a path the server URL has and drops its trailing slashes", () => {
    expect(servicesProxyTrpcUrl('https://rancher.example/k8s/clusters/c-1//', { namespace: 'ns', name: 'svc', port: 'http' })).toBe(
      'https://rancher.example/k8s/clusters/c-1/api/v1/namespaces/ns/services/http:svc:http/proxy/trpc',
    );
  });
  it('escapes what is not a path segment (names come from the API server, but a path is built from them)', () => {
    expect(servicesProxyTrpcUrl('https://k', { namespace: 'a/b', name: 'c?d', port: 'http' })).toBe('https://k/api/v1/namespaces/a%2Fb/services/http:c%3Fd:http/proxy/trpc');
  });
});

describe('adminTokenSecretName', () => {
  it('is <fullname>-admin-token beside <fullname>-operator', () => {
    expect(adminTokenSecretName('orrery-operator')).toBe('orrery-admin-token');
    expect(adminTokenSecretName('blue-orrery-operator')).toBe('blue-orrery-admin-token');
  });
  it('unknown for a Service not named by the chart', () => {
    expect(adminTokenSecretName('my-api')).toBeUndefined();
  });
});
