import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { localSecretHint, localSecretLookup } from './local-secret-lookup.ts';
import { isReservedEnvName, MissingSecretError, resolveTemplateEnv } from './template-env.ts';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));
const secrets: Record<string, string> = { 'shop/keys/api': 's3cret', 'shop/keys/empty': '' };
const lookup = async (ns: string, name: string, key: string) => secrets[`${ns}/${name}/${key}`];

describe('resolveTemplateEnv', () => {
  it('keeps plain values, resolves secret references, skips reserved names', async () => {
    const env = await resolveTemplateEnv('shop', [
      { name: 'MODE', value: 'fast' },
      { name: 'EMPTY' },
      { name: 'API_KEY', valueFrom: { secretKeyRef: { name: 'keys', key: 'api' } } },
      { name: 'BLANK', valueFrom: { secretKeyRef: { name: 'keys', key: 'empty' } } },
      { name: 'ORRERY_STATE_TOKEN', value: 'forged' },
      { name: 'POD_IP', value: '1.2.3.4' },
    ], lookup);
    expect(env).toEqual({ MODE: 'fast', EMPTY: '', API_KEY: 's3cret', BLANK: '' });
  });

  it('skips a missing optional reference and names every missing required one, never a value', async () => {
    expect(await resolveTemplateEnv('shop', [{ name: 'A', valueFrom: { secretKeyRef: { name: 'nope', key: 'k', optional: true } } }], lookup)).toEqual({});
    const err = await resolveTemplateEnv('shop', [
      { name: 'A', valueFrom: { secretKeyRef: { name: 'nope', key: 'k' } } },
      { name: 'B', valueFrom: { secretKeyRef: { name: 'keys', key: 'other' } } },
      { name: 'C', valueFrom: { secretKeyRef: { name: 'keys', key: 'api' } } },
    ], lookup, localSecretHint('shop')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MissingSecretError);
    expect((err as MissingSecretError).missing).toEqual([{ env: 'A', secret: 'nope', key: 'k' }, { env: 'B', secret: 'keys', key: 'other' }]);
    expect((err as Error).message).toBe(
      'env A: secret shop/nope has no key "k" (create it with: orrery secret set shop/nope k < value-file); env B: secret shop/keys has no key "other" (create it with: orrery secret set shop/keys other < value-file)',
    );
    expect((err as Error).message).not.toContain('s3cret');
  });

  it('reserved names', () => {
    for (const n of ['ORRERY_X', 'ORRERY_', 'POD_IP', 'POD_NAME', 'POD_UID']) expect(isReservedEnvName(n), n).toBe(true);
    for (const n of ['orrery_x', 'MY_ORRERY_X', 'POD', 'PATH']) expect(isReservedEnvName(n), n).toBe(false);
  });
});

describe('localSecretLookup', () => {
  it('reads <data-dir>/secrets/<ns>/<name>/<key> byte for byte; absent or malformed references are undefined', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'orrery-secrets-'));
    dirs.push(dir);
    await mkdir(join(dir, 'secrets', 'shop', 'keys'), { recursive: true });
    await writeFile(join(dir, 'secrets', 'shop', 'keys', 'api'), 'line1\nline2\n');
    await writeFile(join(dir, 'secrets', 'master.key'), 'platform');
    const read = localSecretLookup(dir);
    expect(await read('shop', 'keys', 'api')).toBe('line1\nline2\n');
    expect(await read('shop', 'keys', 'nope')).toBeUndefined();
    expect(await read('shop', '..', 'master.key')).toBeUndefined();
    expect(await read('..', 'secrets', 'master.key')).toBeUndefined();
  });
});
