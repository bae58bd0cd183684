import { describe, expect, it } from 'vitest';
import { MALLOC_MMAP_THRESHOLD_BYTES, nodeFlagsFor, withMallocSettings } from './node-memory-settings.ts';

describe('node memory settings of the local platform', () => {
  it('gives the operator --optimize-for-size and the request-path apps no flags', () => {
    expect(nodeFlagsFor('operator', {})).toEqual(['--optimize-for-size']);
    for (const app of ['router', 'statesvc', 'console', 'registry']) expect(nodeFlagsFor(app, {})).toEqual([]);
  });

  it('adds a fixed malloc mmap threshold without changing the given environment', () => {
    const env = { PATH: '/usr/bin' };
    expect(withMallocSettings(env)).toEqual({ PATH: '/usr/bin', MALLOC_MMAP_THRESHOLD_: String(MALLOC_MMAP_THRESHOLD_BYTES) });
    expect(env).toEqual({ PATH: '/usr/bin' });
  });

  it("keeps the user's own malloc threshold", () => {
    expect(withMallocSettings({ MALLOC_MMAP_THRESHOLD_: '65536' }).MALLOC_MMAP_THRESHOLD_).toBe('65536');
  });

  it('does neither with ORRERY_NODE_MEMORY_TUNING=off', () => {
    const env = { ORRERY_NODE_MEMORY_TUNING: 'off' };
    expect(nodeFlagsFor('operator', env)).toEqual([]);
    expect(withMallocSettings(env)).toBe(env);
  });
});
