import { describe, expect, it } from 'vitest';
import type { PlatformInfo } from './platform-file.ts';
import { renderSummary } from './summary.ts';

describe('renderSummary', () => {
  const info: PlatformInfo = {
    storeUrl: 'http://127.0.0.1:8082',
    routerUrls: ['http://127.0.0.1:8080', 'http://127.0.0.1:8081'],
    dataDir: '/tmp/x',
    pids: { supervisor: 1 },
    components: [{ name: 'registry', state: 'degraded', reason: 'no etcd binary' }],
    stateDriver: 'memory',
    startedAt: '',
  };

  it('names the router, the store, the admin token file, what is degraded, and one curl per example', () => {
    const text = renderSummary(info, '/tmp/x/secrets/admin.token', true);
    expect(text).toContain('Degraded  registry');
    expect(text).toContain('no etcd binary');
    expect(text).toContain('/tmp/x/secrets/admin.token');
    expect(text).toContain('curl -X POST http://127.0.0.1:8080/default/counter/');
    expect(text).toContain("-H 'X-Session-Id: alice'");
    expect(text).toContain("curl -H 'Orrery-Tag: canary' http://127.0.0.1:8080/default/canary/");
  });

  it('prints no example curls with --no-examples', () => {
    expect(renderSummary(info, 'f', false)).not.toContain('curl');
  });
});
