import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseMasterKey } from '@orrery/auth';
import { ensureSecrets } from './secrets.ts';

describe('ensureSecrets', () => {
  it('generates the master key and tokens once, mode 0600, and keeps them on the next start', () => {
    const dir = mkdtempSync(join(tmpdir(), 'orrery-secrets-'));
    try {
      const a = ensureSecrets(dir);
      const b = ensureSecrets(dir);
      expect(b).toEqual(a);
      expect(statSync(a.masterKeyFile).mode & 0o777).toBe(0o600);
      expect(statSync(join(dir, 'secrets')).mode & 0o777).toBe(0o700);
      expect(parseMasterKey(readFileSync(a.masterKeyFile, 'utf8'))).toHaveLength(32);
      expect(a.adminToken).toMatch(/^[0-9a-f]{48}$/);
      expect(a.adminToken).not.toBe(a.replicationToken);
      // The registry's: its own master key (not the state one) and a write token the tokens file names.
      expect(parseMasterKey(readFileSync(a.registryMasterKeyFile, 'utf8'))).toHaveLength(32);
      expect(readFileSync(a.registryMasterKeyFile, 'utf8')).not.toBe(readFileSync(a.masterKeyFile, 'utf8'));
      for (const f of [a.registryMasterKeyFile, a.registryWriteTokenFile, a.registryWriteTokensFile]) expect(statSync(f).mode & 0o777).toBe(0o600);
      const toml = readFileSync(a.registryWriteTokensFile, 'utf8');
      expect(toml).toContain(`token_file = ${JSON.stringify(a.registryWriteTokenFile)}`);
      expect(toml).not.toContain(readFileSync(a.registryWriteTokenFile, 'utf8').trim());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
