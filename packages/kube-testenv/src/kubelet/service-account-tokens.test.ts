import { describe, expect, it } from 'vitest';
import type { ApiClient } from './api-client.ts';
import { ServiceAccountTokens } from './service-account-tokens.ts';

/** Answers TokenRequests like the API server, counting them. */
function fakeApi() {
  const requests: Array<{ path: string; body: { spec: { audiences: string[]; expirationSeconds: number; boundObjectRef: object } } }> = [];
  const api = {
    request: async (_method: string, path: string, o: { body: (typeof requests)[number]['body'] }) => {
      requests.push({ path, body: o.body });
      const seconds = o.body.spec.expirationSeconds;
      return { spec: { expirationSeconds: seconds }, status: { token: `token-${requests.length}`, expirationTimestamp: new Date(Date.UTC(2026, 0, 1) + seconds * 1000).toISOString() } };
    },
  } as unknown as ApiClient;
  return { api, requests };
}

const pod = { metadata: { name: 'p', namespace: 'ns', uid: 'uid-1' }, spec: { serviceAccountName: 'sa', containers: [] } };
const T0 = Date.UTC(2026, 0, 1);

describe('ServiceAccountTokens', () => {
  it('asks the TokenRequest API for a token bound to the pod, with the volume audience and lifetime', async () => {
    const { api, requests } = fakeApi();
    const tokens = new ServiceAccountTokens(api);
    expect(await tokens.tokenFor(pod, { path: 'token', audience: 'vault', expirationSeconds: 600 }, T0)).toBe('token-1');
    expect(requests[0]).toEqual({
      path: '/api/v1/namespaces/ns/serviceaccounts/sa/token',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: ['vault'], expirationSeconds: 600, boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'uid-1' } } },
    });
    await tokens.tokenFor(pod, { path: 'token' }, T0);
    expect(requests[1]!.body.spec).toMatchObject({ audiences: [], expirationSeconds: 3600 });
  });

  it('reuses a token until 80 % of its lifetime has passed, then renews it', async () => {
    const { api, requests } = fakeApi();
    const tokens = new ServiceAccountTokens(api);
    const source = { path: 'token', expirationSeconds: 3607 };
    await tokens.tokenFor(pod, source, T0);
    expect(await tokens.tokenFor(pod, source, T0 + 0.79 * 3607_000)).toBe('token-1');
    expect(tokens.dueForPod('uid-1', T0 + 0.79 * 3607_000)).toBe(false);
    expect(tokens.dueForPod('uid-1', T0 + 0.81 * 3607_000)).toBe(true);
    expect(await tokens.tokenFor(pod, source, T0 + 0.81 * 3607_000)).toBe('token-2');
    expect(requests).toHaveLength(2);
    tokens.forget('uid-1');
    expect(tokens.dueForPod('uid-1', T0 + 10 * 3600_000)).toBe(false);
  });
});
