import { describe, expect, it } from 'vitest';
import { buildKey } from './build-key.ts';

const sha = 'a'.repeat(64);

describe('buildKey', () => {
  it('is 64 hex digits, stable for the same archive and builder', () => {
    expect(buildKey(sha, 'node')).toMatch(/^[0-9a-f]{64}$/);
    expect(buildKey(sha, 'node')).toBe(buildKey(sha, 'node'));
  });

  it('changes with the archive and with the builder', () => {
    expect(buildKey(sha, 'node')).not.toBe(buildKey('b'.repeat(64), 'node'));
    expect(buildKey(sha, 'node')).not.toBe(buildKey(sha, 'python'));
    expect(buildKey(sha, 'node orrery/runtime-node:1')).not.toBe(buildKey(sha, 'node orrery/runtime-node:2'));
  });
});
