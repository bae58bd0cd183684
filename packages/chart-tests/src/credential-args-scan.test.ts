import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { chartDir } from './chart-files.ts';
import { scanCredentials } from './credential-args-scan.ts';
import { helmTemplate, type K8sObject } from './helm-template.ts';

const deployment = (container: Record<string, unknown>): K8sObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'd' },
  spec: { template: { spec: { containers: [{ name: 'c', ...container }] } } },
});

describe('scanCredentials', () => {
  it('flags credentials on command lines and in literal env values', () => {
    const found = scanCredentials([
      deployment({ args: ['--admin-token=s3cret-but-short', '--database-url=postgres://orrery:hunter2@pg:5432/orrery', `--opaque=${'ab'.repeat(32)}`] }),
      deployment({ command: ['sh', '-c', `redis-server --requirepass ${'Zq9'.repeat(16)}`] }),
      deployment({ command: ['sh', '-c'], args: ['exec redis-server - <<EOF\nrequirepass hunter2\nEOF'] }),
      deployment({ env: [{ name: 'ORRERY_STORE_TOKEN', value: 'abc' }, { name: 'DATABASE_URL', value: 'postgres://u:pw@h/db' }] }),
    ]);
    expect(found.map((f) => f.why)).toEqual([
      expect.stringContaining('credential-like flag'),
      expect.stringContaining('URL with a password'),
      expect.stringContaining('random-looking'),
      expect.stringContaining('Redis password on the command line'),
      expect.stringContaining('Redis password on the command line'),
      expect.stringContaining('credential-like variable'),
      expect.stringContaining('literal password'),
    ]);
  });

  it('accepts files, Secret names, secretKeyRefs and the kubelet’s $(VAR) expansion', () => {
    expect(
      scanCredentials([
        deployment({
          args: ['--store-token-file=/etc/orrery/store-token/token', '--store-token-secret=orrery-store-token/token', '--require-registry-write-tokens', '--port=8080'],
          env: [
            { name: 'POSTGRES_PASSWORD', valueFrom: { secretKeyRef: { name: 'pg', key: 'password' } } },
            { name: 'DATABASE_URL', value: 'postgres://orrery:$(POSTGRES_PASSWORD)@pg.ns.svc:5432/orrery' },
          ],
        }),
        // The trial Redis: its password read from the mounted Secret into the config on stdin.
        deployment({ command: ['sh', '-c'], args: ['exec redis-server - <<EOF\nrequirepass $(cat /etc/redis-auth/password)\nEOF\n'] }),
      ]),
    ).toEqual([]);
  });
});

describe('the rendered chart keeps credentials off command lines', { timeout: 60_000 }, () => {
  const ci = parse(readFileSync(join(chartDir, 'ci', 'test-values.yaml'), 'utf8')) as Record<string, unknown>;
  it.each([
    ['the defaults', {}],
    ['the CI values', ci],
    ['existing Secrets everywhere, cert-manager, ServiceMonitors', { ...ci, redis: { existingSecret: 'r' }, registry: { masterKey: { existingSecret: 'k', previousKey: 'old' }, writeTokens: { existingSecret: 'w' } }, admin: { users: { existingSecret: 'u' } }, webhook: { certManager: { enabled: true, issuerRef: { name: 'ca' } } }, metrics: { serviceMonitor: { enabled: true } } }],
  ])('%s', (_label, values) => {
    const objects = helmTemplate(values).objects;
    expect(objects.filter((o) => o.spec?.template?.spec).length).toBeGreaterThanOrEqual(3);
    expect(scanCredentials(objects)).toEqual([]);
  });
});
