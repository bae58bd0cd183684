import { describe, expect, it } from 'vitest';
import { MergeTable } from './merge-table.ts';

const enc = new TextEncoder();

class Counters extends MergeTable<{ n: number; at: number }> {
  constructor(now: () => number) {
    super({
      namespace: 'counters',
      now,
      toJson: (r) => ({ n: r.n, at: r.at }),
      fromJson: (j) => ({ n: Number(j.n), at: Number(j.at) }),
      prefer: (a, b) => a.n > b.n,
      stampMs: (r) => r.at,
      expired: (r, now) => now - r.at > 10_000,
      refreshAfterMs: 1_000,
      tombstoneRetentionMs: 5_000,
    });
  }
  set(id: string, n: number): boolean {
    return this.setLocal(id, { n, at: this.now() });
  }
  del(id: string): void {
    this.deleteLocally(id);
  }
  get(id: string): number | undefined {
    return this.getRecord(id)?.n;
  }
}

describe('MergeTable', () => {
  it('rejects an empty namespace', () => {
    expect(() => new MergeTable({ namespace: '', toJson: () => ({}), fromJson: () => 0, prefer: () => true, stampMs: () => 0, expired: () => false })).toThrow(/namespace/);
  });

  it('local writes merge by the rule and only winning writes become dirty', () => {
    const t = new Counters(() => 0);
    expect(t.set('a', 2)).toBe(true);
    t.clearDirty(t.delta());
    expect(t.set('a', 1)).toBe(false);
    expect(t.dirtyIds()).toEqual([]);
    expect(t.get('a')).toBe(2);
  });

  it('an unknown delta passed to clearDirty changes nothing', () => {
    const t = new Counters(() => 0);
    t.set('a', 1);
    t.clearDirty({ upserts: new Map(), deletes: [] });
    expect(t.dirtyIds()).toEqual(['a']);
  });

  it('remembers deletions for the retention window only', () => {
    let now = 0;
    const t = new Counters(() => now);
    t.del('a');
    t.clearDirty(t.delta());
    const old = enc.encode(JSON.stringify({ n: 5, at: 0 }));
    t.applyRemote('a', old);
    expect(t.get('a')).toBeUndefined(); // written no later than the delete
    now = 6_000;
    t.delta(); // prunes the deletion memory
    t.applyRemote('a', enc.encode(JSON.stringify({ n: 5, at: 5_500 })));
    expect(t.get('a')).toBe(5);
  });

  it('drops expired records, and refreshes live ones after refreshAfterMs', () => {
    let now = 0;
    const t = new Counters(() => now);
    t.set('a', 1);
    t.clearDirty(t.delta());
    now = 1_000;
    expect([...t.delta().upserts.keys()]).toEqual(['a']);
    now = 20_000;
    expect(t.delta().upserts.size).toBe(0);
    expect(t.snapshot().size).toBe(0);
  });

  it('a tombstone removes a record written before it and not one written after', () => {
    let now = 100;
    const t = new Counters(() => now);
    t.set('a', 1);
    t.deleteLocal('a', enc.encode(JSON.stringify({ deleted: true, at: 50 })));
    expect(t.get('a')).toBe(1);
    t.clearDirty(t.delta());
    now = 200;
    t.deleteLocal('a', enc.encode(JSON.stringify({ deleted: true, at: 150 })));
    expect(t.get('a')).toBeUndefined();
    t.applyRemote('b', enc.encode(JSON.stringify({ deleted: true, at: 150 })));
    expect(t.get('b')).toBeUndefined();
    expect(() => t.applyRemote('c', enc.encode('[1]'))).toThrow(/JSON object/);
  });
});
