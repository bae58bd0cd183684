import { describe, expect, it } from 'vitest';
import type { PlatformInfo } from './platform-file.ts';
import { renderSummary } from './summary.ts';

describe('renderSummary', () => {
  const info: PlatformInfo = {
    storeUrl: 'http://127.0.0.1:8082',
    routerUrls: ['http://127.0.0.1:8080', 'http://127.0.0.1:8081'],
    registryUrl: 'http://127.0.0.1:8084',
    dataDir: '/tmp/x',
    pids: { supervisor: 1 },
    components: [
      { name: 'registry', state: 'degraded', reason: 'no etcd binary' },
      { name: 'router-1', state: 'ready', url: 'http://127.0.0.1:8080', adminUrl: 'http://127.0.0.1:8086' },
      { name: 'router-2', state: 'ready', url: 'http://127.0.0.1:8081', adminUrl: 'http://127.0.0.1:8087' },
    ],
    stateDriver: 'memory',
    startedAt: '',
  };
  const all = { adminTokenFile: '/tmp/x/secrets/admin.token', adminToken: 'f00dcafe', terminal: true, examples: true, exampleKinds: ['Environment', 'Function', 'RegistryCluster', 'StateSync'] };

  it('names the router, the store, the admin token and its file, what is degraded, and one curl per example', () => {
    const text = renderSummary(info, all);
    expect(text).toContain('Degraded  registry');
    expect(text).toContain('no etcd binary');
    expect(text).toMatch(/admin token {3}f00dcafe {3}\(stored in \/tmp\/x\/secrets\/admin\.token\)/);
    expect(text).toContain('curl -X POST http://127.0.0.1:8080/default/counter/');
    expect(text).toContain("-H 'X-Session-Id: alice'");
    expect(text).toContain("curl -H 'Orrery-Tag: canary' http://127.0.0.1:8080/default/canary/");
  });

  it('has a curl for the registry example (instances through the registry API) and the statesync example (router admin stats)', () => {
    const text = renderSummary(info, all);
    expect(text).toContain("curl 'http://127.0.0.1:8084/api/v1/registry/instances?namespace=default'");
    expect(text).toContain("curl 'http://127.0.0.1:8084/api/v1/registry/instances?namespace=default&servicePrefix=orrery.functions.default.counter'");
    expect(text).toMatch(/curl http:\/\/127\.0\.0\.1:8086\/v1\/stats .*statesync.*http:\/\/127\.0\.0\.1:8087\/v1\/stats/);
  });

  it('leaves out the registry and statesync curls when their examples or components are missing', () => {
    const noKinds = renderSummary(info, { ...all, exampleKinds: ['Function'] });
    expect(noKinds).not.toContain('/api/v1/registry/instances');
    expect(noKinds).not.toContain('/v1/stats');
    const noRegistry = renderSummary({ ...info, registryUrl: undefined }, all);
    expect(noRegistry).not.toContain('/api/v1/registry/instances');
  });

  it('prints the admin token only to a terminal: piped or redirected output gets the file', () => {
    const piped = renderSummary(info, { ...all, terminal: false });
    expect(piped).not.toContain('f00dcafe');
    expect(piped).toContain('admin token   in /tmp/x/secrets/admin.token   (not printed: stdout is not a terminal)');
    expect(renderSummary(info, { ...all, terminal: undefined })).not.toContain('f00dcafe');
  });

  it('says where the registry write token is (its value never)', () => {
    const text = renderSummary(info, { ...all, registryWriteTokenFile: '/tmp/x/secrets/registry-write.token' });
    expect(text).toContain('use the write token in /tmp/x/secrets/registry-write.token (Authorization: Bearer)');
  });

  it('prints no example curls with --no-examples, and only the file when the token is not known', () => {
    const text = renderSummary(info, { adminTokenFile: 'f', examples: false });
    expect(text).not.toContain('curl');
    expect(text).toContain('admin token   in f');
  });
});
