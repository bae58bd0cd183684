import { describe, expect, it } from 'vitest';
import { routeRefusal } from './admin-route-errors.ts';
import { servicesProxyUrl } from './operator-service.ts';
import { apiServerStatus, pickRouterService } from './router-service.ts';

describe('pickRouterService', () => {
  const router = { name: 'orrery-router', ports: [{ name: 'http', port: 80 }] };
  const routerAdmin = { name: 'orrery-router-admin', ports: [{ name: 'admin', port: 9090 }] };

  it('picks the function-traffic Service, never the router-admin one beside it', () => {
    expect(pickRouterService('orrery-system', [routerAdmin, router])).toEqual({ namespace: 'orrery-system', name: 'orrery-router', port: 'http' });
    expect(servicesProxyUrl('https://10.0.0.1:6443', { namespace: 'orrery-system', name: 'orrery-router', port: 'http' })).toBe(
      'https://10.0.0.1:6443/api/v1/namespaces/orrery-system/services/http:orrery-router:http/proxy',
    );
  });

  it('says to install the chart, or to pick with --router-url', () => {
    const none = pickRouterService('elsewhere', [routerAdmin]);
    expect('error' in none && none.error).toMatch(/no Orrery router Service in namespace elsewhere .*helm install orrery charts\/orrery -n elsewhere.*--orrery-namespace/);
    const two = pickRouterService('ns', [router, { ...router, name: 'other-router' }]);
    expect('error' in two && two.error).toMatch(/several Orrery router Services in namespace ns \(orrery-router, other-router\).*--router-url/);
  });
});

describe('apiServerStatus', () => {
  const status = (message: string) => JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message, code: 503 });

  it("finds the API server's own refusal: a v1 Status with a message, on an error status", () => {
    expect(apiServerStatus(503, 'application/json', status('no endpoints available for service "orrery-router"'))).toBe('no endpoints available for service "orrery-router"');
  });

  it("leaves the function's answers alone: successes, other JSON, other content types, broken JSON", () => {
    expect(apiServerStatus(200, 'application/json', status('x'))).toBeUndefined();
    expect(apiServerStatus(500, 'application/json', JSON.stringify({ error: 'boom' }))).toBeUndefined();
    expect(apiServerStatus(500, 'text/plain', status('x'))).toBeUndefined();
    expect(apiServerStatus(500, null, status('x'))).toBeUndefined();
    expect(apiServerStatus(502, 'application/json', '{not json')).toBeUndefined();
    expect(apiServerStatus(404, 'application/json', JSON.stringify({ kind: 'Status', apiVersion: 'v2', message: 'x' }))).toBeUndefined();
  });

  it('words a refusal on the way to the router for the router, not the operator', () => {
    const f = { server: 'https://k', namespace: 'orrery-system', service: 'orrery-router', component: 'router' as const };
    expect(routeRefusal('proxy', 503, 'no endpoints available', f)).toBe(
      'the router behind Service orrery-system/orrery-router is not ready (no endpoints available): check kubectl -n orrery-system get pods -l app.kubernetes.io/component=router, then retry',
    );
    expect(routeRefusal('proxy', 403, 'user "u" cannot get resource "services/proxy" in API group ""', f)).toMatch(/needs get on services\/proxy in namespace orrery-system, to call functions through the API server/);
    expect(routeRefusal('list-services', 403, 'user "u" cannot list resource "services" in API group ""', f)).toMatch(/to find the router's Service/);
  });
});
