import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { deleteLocalSecret, listLocalSecretKeys, listLocalSecrets, parseSecretName, setLocalSecret } from '../secrets/local-secret-store.ts';
import { withoutTrailingNewline } from './secret.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'orrery.mjs');
const dirs: string[] = [];
const fresh = () => {
  const d = mkdtempSync(join(tmpdir(), 'orrery-secret-'));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('local secret store', () => {
  it('parses NS/NAME and NAME, refusing paths', () => {
    expect(parseSecretName('shop/keys')).toEqual({ namespace: 'shop', name: 'keys' });
    expect(parseSecretName('keys', 'team')).toEqual({ namespace: 'team', name: 'keys' });
    for (const bad of ['a/b/c', '../x', 'shop/..', '/x', 'Shop/keys', 'shop/']) expect(() => parseSecretName(bad), bad).toThrow();
  });

  it('writes values byte for byte, 0600 in 0700 folders; lists keys and names; deletes', () => {
    const dir = fresh();
    const file = setLocalSecret(dir, { namespace: 'shop', name: 'keys' }, 'api-key', Buffer.from('v\n1'));
    expect(file).toBe(join(dir, 'secrets', 'shop', 'keys', 'api-key'));
    expect(readFileSync(file, 'utf8')).toBe('v\n1');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    for (const d of ['secrets', 'secrets/shop', 'secrets/shop/keys']) expect(statSync(join(dir, d)).mode & 0o777, d).toBe(0o700);
    setLocalSecret(dir, { namespace: 'shop', name: 'keys' }, 'api-key', 'v2');
    expect(readFileSync(file, 'utf8')).toBe('v2');
    setLocalSecret(dir, { namespace: 'shop', name: 'keys' }, 'other', '');
    expect(listLocalSecretKeys(dir, { namespace: 'shop', name: 'keys' })).toEqual(['api-key', 'other']);
    expect(listLocalSecrets(dir, 'shop')).toEqual(['keys']);
    expect(deleteLocalSecret(dir, { namespace: 'shop', name: 'keys' }, 'other')).toBe(true);
    expect(deleteLocalSecret(dir, { namespace: 'shop', name: 'keys' }, 'other')).toBe(false);
    expect(deleteLocalSecret(dir, { namespace: 'shop', name: 'keys' })).toBe(true);
    expect(listLocalSecretKeys(dir, { namespace: 'shop', name: 'keys' })).toEqual([]);
  });

  it('drops exactly one trailing newline', () => {
    expect(withoutTrailingNewline(Buffer.from('a\n')).toString()).toBe('a');
    expect(withoutTrailingNewline(Buffer.from('a\r\n')).toString()).toBe('a');
    expect(withoutTrailingNewline(Buffer.from('a\n\n')).toString()).toBe('a\n');
    expect(withoutTrailingNewline(Buffer.from('a')).toString()).toBe('a');
    expect(withoutTrailingNewline(Buffer.from('')).toString()).toBe('');
  });
});

describe('orrery secret (the CLI process)', { timeout: 60_000 }, () => {
  const cli = (args: string[], input?: string) => spawnSync(process.execPath, [BIN, 'secret', ...args], { input, encoding: 'utf8', cwd: tmpdir() });

  it('set reads stdin (never a flag), list shows keys not values, delete removes', () => {
    const dir = fresh();
    const set = cli(['set', 'shop/shop-keys', 'api-key', '--data-dir', dir], 'sk_live_1\n');
    expect(set.status, set.stderr).toBe(0);
    expect(set.stdout).toBe('secret shop/shop-keys key api-key set (9 bytes)\n');
    expect(readFileSync(join(dir, 'secrets', 'shop', 'shop-keys', 'api-key'), 'utf8')).toBe('sk_live_1');
    const list = cli(['list', 'shop/shop-keys', '--data-dir', dir]);
    expect(list.stdout).toBe('api-key\n');
    expect(list.stdout + list.stderr).not.toContain('sk_live_1');
    expect(cli(['list', '-n', 'shop', '--data-dir', dir]).stdout).toBe('shop-keys\n');
    expect(cli(['delete', 'shop/shop-keys', 'api-key', '--data-dir', dir]).status).toBe(0);
    expect(cli(['list', 'shop/shop-keys', '--data-dir', dir]).status).toBe(1);
  });

  it('refuses bad names with exit 2 and says why', () => {
    const dir = fresh();
    const r = cli(['set', 'shop/../x', 'k', '--data-dir', dir], 'v');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/NAMESPACE\/NAME|secret name|not a DNS/);
    expect(cli(['set', 'shop/keys', '..', '--data-dir', dir], 'v').status).toBe(2);
    expect(cli(['frobnicate', '--data-dir', dir]).status).toBe(2);
  });
});
