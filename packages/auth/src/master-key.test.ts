import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseMasterKey, readMasterKeyFile } from './master-key.ts';

describe('master key files', () => {
  it('hold hex, trimmed, at least 16 bytes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'orrery-key-'));
    try {
      const file = join(dir, 'key');
      writeFileSync(file, `${'ab'.repeat(32)}\n`);
      expect(readMasterKeyFile(file)).toEqual(Buffer.alloc(32, 0xab));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(() => parseMasterKey('zz'.repeat(16))).toThrow(/hex/);
    expect(() => parseMasterKey('abc')).toThrow(/hex/);
    expect(() => parseMasterKey('ab'.repeat(16))).not.toThrow();
    expect(() => parseMasterKey('ab'.repeat(15))).toThrow(/at least 16/);
    expect(() => readMasterKeyFile('/nonexistent/orrery-key')).toThrow();
  });
});
