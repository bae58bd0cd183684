import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { setLocalSecret } from '../secrets/local-secret-store.ts';
import { missingTlsSecrets } from './missing-dev-certificates.ts';

const dir = mkdtempSync(join(tmpdir(), 'orrery-missing-tls-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fn = (namespace: string, domains: unknown[]) => ({ metadata: { namespace, name: 'f' }, spec: { domains } });

describe('orrery up --tls: which local TLS Secrets to make', () => {
  it('one per missing Secret, covering every host that names it; existing Secrets and hosts without tls are left alone', () => {
    setLocalSecret(dir, { namespace: 'default', name: 'real' }, 'tls.crt', 'a real certificate');
    const missing = missingTlsSecrets(
      [
        fn('default', [{ host: 'a.localtest.me', tls: { secretName: 'site-tls' } }, { host: 'b.localtest.me', tls: { secretName: 'site-tls' } }, { host: 'plain.localtest.me' }]),
        fn('default', [{ host: 'r.localtest.me', tls: { secretName: 'real' } }]),
        fn('team', [{ host: 'c.localtest.me', tls: { secretName: 'site-tls' } }]),
        fn('team', [{ host: 'x.localtest.me', tls: { secretName: '../escape' } }]),
      ],
      dir,
    );
    expect([...missing.values()]).toEqual([
      { namespace: 'default', name: 'site-tls', hosts: ['a.localtest.me', 'b.localtest.me'] },
      { namespace: 'team', name: 'site-tls', hosts: ['c.localtest.me'] },
    ]);
  });
});
