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
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
