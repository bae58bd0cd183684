import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_ROUTER_URL, DEFAULT_STORE_URL, resolveConnection } from './resolve-connection.ts';

const dirs: string[] = [];
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), 'orrery-cli-conn-'));
  dirs.push(d);
  return d;
};
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('CLI connection resolution', () => {
  it('defaults without flags, environment or platform file', () => {
    const c = resolveConnection({}, {}, temp());
    expect(c).toMatchObject({ storeUrl: DEFAULT_STORE_URL, routerUrl: DEFAULT_ROUTER_URL, storeToken: undefined, platformFile: undefined });
  });

  it('reads .orrery/platform.json from the working directory or a parent; data dir relative to the project', () => {
    const root = temp();
    mkdirSync(join(root, '.orrery'));
    mkdirSync(join(root, 'sub', 'deeper'), { recursive: true });
    writeFileSync(join(root, '.orrery', 'platform.json'), JSON.stringify({ storeUrl: 'http://127.0.0.1:7111/', routerUrls: ['http://127.0.0.1:8111', 'http://127.0.0.1:8112'], dataDir: join(root, '.orrery') }));
    const c = resolveConnection({}, {}, join(root, 'sub', 'deeper'));
    expect(c).toMatchObject({ storeUrl: 'http://127.0.0.1:7111', routerUrl: 'http://127.0.0.1:8111', dataDir: join(root, '.orrery') });
  });

  it('falls back to the store token a local operator made in its data dir (<data-dir>/secrets/store.token)', () => {
    const dataDir = temp();
    mkdirSync(join(dataDir, 'secrets'));
    writeFileSync(join(dataDir, 'secrets', 'store.token'), 'made-by-operator\n');
    expect(resolveConnection({ dataDir }, {}, temp()).storeToken).toBe('made-by-operator');
    expect(resolveConnection({ dataDir }, { ORRERY_STORE_TOKEN: 'env' }, temp()).storeToken).toBe('env');
  });

  it('flags beat the environment, which beats the platform file; a token file beats a token', () => {
    const root = temp();
    mkdirSync(join(root, '.orrery'));
    writeFileSync(join(root, '.orrery', 'platform.json'), JSON.stringify({ storeUrl: 'http://file', storeToken: 'from-file' }));
    writeFileSync(join(root, 'tok'), 'from-token-file\n');
    expect(resolveConnection({}, { ORRERY_STORE_URL: 'http://env' }, root).storeUrl).toBe('http://env');
    expect(resolveConnection({ storeUrl: 'http://flag' }, { ORRERY_STORE_URL: 'http://env' }, root).storeUrl).toBe('http://flag');
    expect(resolveConnection({}, {}, root).storeToken).toBe('from-file');
    expect(resolveConnection({ storeTokenFile: join(root, 'tok') }, { ORRERY_STORE_TOKEN: 'env' }, root).storeToken).toBe('from-token-file');
  });

  it('$ORRERY_DATA_DIR (or --data-dir) names the platform file directly, with the admin token beside it', () => {
    const dir = temp();
    mkdirSync(join(dir, 'secrets'));
    writeFileSync(join(dir, 'platform.json'), JSON.stringify({ storeUrl: 'http://127.0.0.1:9182', routerUrls: ['http://127.0.0.1:9180'], dataDir: dir }));
    writeFileSync(join(dir, 'secrets', 'admin.token'), 'the-admin-token\n');
    const c = resolveConnection({}, { ORRERY_DATA_DIR: dir }, temp());
    expect(c).toMatchObject({ apiUrl: 'http://127.0.0.1:9182', apiToken: 'the-admin-token', routerUrl: 'http://127.0.0.1:9180', dataDir: dir, directStore: false });
  });

  it('on Kubernetes the local platform\'s admin token is not used; an explicit one is; the release namespace defaults to orrery-system', () => {
    const dir = temp();
    mkdirSync(join(dir, 'secrets'));
    writeFileSync(join(dir, 'platform.json'), JSON.stringify({ storeUrl: 'http://127.0.0.1:9182', dataDir: dir }));
    writeFileSync(join(dir, 'secrets', 'admin.token'), 'the-local-admin-token\n');
    writeFileSync(join(dir, 'tok'), 'from-token-file\n');
    const kube = resolveConnection({ kubeconfig: '/k/config' }, { ORRERY_DATA_DIR: dir }, temp());
    expect(kube).toMatchObject({ kube: { kubeconfig: '/k/config' }, apiToken: undefined, orreryNamespace: 'orrery-system' });
    expect(resolveConnection({ kubeconfig: '/k/config', tokenFile: join(dir, 'tok') }, { ORRERY_DATA_DIR: dir }, temp()).apiToken).toBe('from-token-file');
    expect(resolveConnection({ context: 'prod' }, { ORRERY_API_TOKEN: 'env-token' }, temp()).apiToken).toBe('env-token');
    expect(resolveConnection({}, { ORRERY_DATA_DIR: dir }, temp()).apiToken).toBe('the-local-admin-token');
  });

  it('--orrery-namespace beats $ORRERY_NAMESPACE', () => {
    expect(resolveConnection({ context: 'c' }, { ORRERY_NAMESPACE: 'from-env' }, temp()).orreryNamespace).toBe('from-env');
    expect(resolveConnection({ context: 'c', orreryNamespace: 'from-flag' }, { ORRERY_NAMESPACE: 'from-env' }, temp()).orreryNamespace).toBe('from-flag');
  });

  it('a malformed platform file is an error that names the file', () => {
    const root = temp();
    mkdirSync(join(root, '.orrery'));
    writeFileSync(join(root, '.orrery', 'platform.json'), '[1]');
    expect(() => resolveConnection({}, {}, root)).toThrow(/platform\.json: expected a JSON object/);
  });
});
