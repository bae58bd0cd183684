import { describe, expect, it } from 'vitest';
import { proxyRefusal, routeRefusal } from './admin-route-errors.ts';

const f = { server: 'https://10.0.0.1:6443', namespace: 'orrery-system', service: 'orrery-operator', secret: 'orrery-admin-token' };
const status = (code: number, message: string) => JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message, code });

describe('proxyRefusal', () => {
  it("lets the admin API's own answers through, errors included (tRPC reads them)", () => {
    expect(proxyRefusal(200, JSON.stringify({ result: { data: {} } }), f)).toBeUndefined();
    expect(proxyRefusal(401, JSON.stringify({ error: { message: 'no session', code: -32001, data: { code: 'UNAUTHORIZED' } } }), f)).toBeUndefined();
    expect(proxyRefusal(403, JSON.stringify({ error: { message: 'cross_origin', data: { code: 'FORBIDDEN' } } }), f)).toBeUndefined();
    expect(proxyRefusal(200, JSON.stringify([{ result: { data: 1 } }, { error: {} }]), f)).toBeUndefined();
  });
  it('RBAC denial on services/proxy names the verb, the resource, the namespace and the Role', () => {
    const msg = 'services "orrery-operator" is forbidden: User "system:serviceaccount:t:dev" cannot create resource "services/proxy" in API group "" in the namespace "orrery-system"';
    const r = proxyRefusal(403, status(403, msg), f)!;
    expect(r).toContain('needs create on services/proxy in namespace orrery-system');
    expect(r).toContain('docs/cli.md');
    expect(r).toContain(msg);
  });
  it('no ready endpoint (503) or a dead one (502): the operator is not ready, with where to look', () => {
    expect(proxyRefusal(503, status(503, 'no endpoints available for service "orrery-operator"'), f)).toMatch(
      /^the operator behind Service orrery-system\/orrery-operator is not ready \(no endpoints available .*\): check kubectl -n orrery-system get pods -l app\.kubernetes\.io\/component=operator/,
    );
    expect(proxyRefusal(502, 'error trying to reach service: dial tcp 10.1.2.3:7070: connect: connection refused', f)).toMatch(/is not ready \(error trying to reach service: dial tcp/);
  });
  it('credentials the API server does not take; the Service gone; anything else with its status', () => {
    expect(proxyRefusal(401, status(401, 'Unauthorized'), f)).toMatch(/did not accept the credentials of the kubeconfig \(Unauthorized\)/);
    expect(proxyRefusal(404, status(404, 'services "orrery-operator" not found'), f)).toMatch(/found no Service orrery-system\/orrery-operator .*helm list -n orrery-system/);
    expect(proxyRefusal(429, status(429, 'too many requests'), f)).toBe('the Kubernetes API server answered 429: too many requests');
  });
  it('a 2xx that is no admin API answer is not trusted as one', () => {
    expect(proxyRefusal(200, '<html>hello</html>', f)).toMatch(/without an admin API answer/);
  });
});

describe('routeRefusal', () => {
  it('cannot list services: says so, for finding the Service', () => {
    expect(routeRefusal('list-services', 403, 'services is forbidden: User "dev" cannot list resource "services" in API group "" in the namespace "orrery-system"', f)).toMatch(
      /needs list on services in namespace orrery-system, to find the operator's Service/,
    );
  });
  it('cannot read the Secret, or it is not there: suggests --token-file', () => {
    expect(routeRefusal('read-secret', 403, 'secrets "orrery-admin-token" is forbidden: User "dev" cannot get resource "secrets"', f)).toMatch(/needs get on secrets .*Secret orrery-system\/orrery-admin-token; pass the admin token with --token-file FILE/);
    expect(routeRefusal('read-secret', 404, 'not found', f)).toMatch(/no Secret orrery-system\/orrery-admin-token .*existingSecret.*--token-file FILE/);
  });
  it('no answer at all: check the kubeconfig', () => {
    expect(routeRefusal('proxy', undefined, 'connect ECONNREFUSED 10.0.0.1:6443', f)).toBe(
      'the Kubernetes API server at https://10.0.0.1:6443 did not answer (connect ECONNREFUSED 10.0.0.1:6443): check --kubeconfig / --context / $KUBECONFIG',
    );
  });
});
