import { describe, expect, it } from 'vitest';
import { parseKeyspaces } from './keyspaces.ts';

describe('keyspaces file', () => {
  it('resolves zero quotas to the platform defaults and keeps the declared TTL', () => {
    const t = parseKeyspaces(`
- {namespace: default, keyspace: cart, maxKeys: 5, maxValueBytes: 100, defaultTTL: 1m30s}
- {namespace: default, keyspace: sessions}
`);
    expect(t.get('default/cart')).toEqual({ namespace: 'default', keyspace: 'cart', maxKeys: 5, maxValueBytes: 100, defaultTtlMs: 90_000, defaultTTL: '1m30s' });
    expect(t.get('default/sessions')).toMatchObject({ maxKeys: 10_000, maxValueBytes: 256 * 1024, defaultTtlMs: 0, defaultTTL: null });
    expect(parseKeyspaces('').size).toBe(0);
  });

  it('idempotencyRetention: declared → ms; absent → undefined (statesvc\'s --idempotency-retention applies)', () => {
    const t = parseKeyspaces('- {namespace: d, keyspace: a, idempotencyRetention: 1h}\n- {namespace: d, keyspace: b}\n');
    expect(t.get('d/a')!.idempotencyRetentionMs).toBe(3_600_000);
    expect(t.get('d/b')!.idempotencyRetentionMs).toBeUndefined();
    expect(() => parseKeyspaces('- {namespace: d, keyspace: a, idempotencyRetention: 0s}')).toThrow(/idempotencyRetention/);
    expect(() => parseKeyspaces('- {namespace: d, keyspace: a, idempotencyRetention: 169h}')).toThrow(/idempotencyRetention/);
    expect(() => parseKeyspaces('- {namespace: d, keyspace: a, idempotencyRetention: 1500ms}')).toThrow(/idempotencyRetention/);
  });

  it('refuses what spec.state refuses, with the item named', () => {
    expect(() => parseKeyspaces('{a: 1}')).toThrow(/YAML list/);
    expect(() => parseKeyspaces('- {namespace: Default, keyspace: a}')).toThrow(/item 0: namespace/);
    expect(() => parseKeyspaces('- {namespace: d, keyspace: "a:b"}')).toThrow(/keyspace must match/);
    expect(() => parseKeyspaces('- {namespace: d, keyspace: "a#meta"}')).toThrow(/keyspace must match/);
    expect(() => parseKeyspaces(`- {namespace: d, keyspace: ${'a'.repeat(64)}}`)).toThrow(/63/);
    expect(() => parseKeyspaces('- {namespace: d, keyspace: a, maxKeys: -1}')).toThrow(/maxKeys/);
    expect(() => parseKeyspaces('- {namespace: d, keyspace: a, defaultTTL: soon}')).toThrow(/defaultTTL/);
    expect(() => parseKeyspaces('- {namespace: d, keyspace: a}\n- {namespace: d, keyspace: a}')).toThrow(/twice/);
    expect(() => parseKeyspaces('- 3')).toThrow(/mapping/);
  });
});
