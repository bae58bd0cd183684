import { describe, expect, it } from 'vitest';
import { rawStateRoute } from './raw-state-route.ts';

const cap = 1024;
const head = (method: string, target: string, contentLength = 0) => ({ method, target, contentLength });

describe('rawStateRoute', () => {
  it('takes state-key reads, writes, deletes and CAS within the body cap', () => {
    for (const m of ['GET', 'PUT', 'DELETE', 'POST']) expect(rawStateRoute(head(m, '/v1/state/k', 10), cap)).toBe(true);
    expect(rawStateRoute(head('PUT', '/v1/state/a%2Fb?x=1', cap), cap)).toBe(true);
  });

  it('leaves everything else to node:http', () => {
    expect(rawStateRoute(head('PUT', '/v1/state/k', cap + 1), cap)).toBe(false); // refused unread there
    expect(rawStateRoute(head('HEAD', '/v1/state/k'), cap)).toBe(false);
    expect(rawStateRoute(head('PATCH', '/v1/state/k'), cap)).toBe(false);
    expect(rawStateRoute(head('OPTIONS', '/v1/state/k'), cap)).toBe(false);
    for (const target of ['/v1/state', '/v1/state?prefix=a', '/v1/changes', '/v1/fences/k', '/v1/admin/usage', '/healthz', '/readyz', '/metrics', '/v1/statex']) {
      expect(rawStateRoute(head('GET', target), cap)).toBe(false);
    }
  });
});
