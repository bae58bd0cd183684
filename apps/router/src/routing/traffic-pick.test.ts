import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { OrreryFunctionInput } from '@orrery/spec';
import { FunctionSchema, RevisionSchema, seededRandom } from '@orrery/spec';
import { fnv1a64, fnv64Init, fnv64Update } from '../admit/fnv1a64.ts';
import { compileRoutes } from './route-table.ts';
import { firstAbove, pickSticky, pickWeighted } from './traffic-pick.ts';

const fnOf = (traffic: OrreryFunctionInput['spec']['traffic']): ReturnType<typeof compileRoutes> =>
  compileRoutes(
    [FunctionSchema.parse({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', metadata: { name: 'f', namespace: 'ns' }, spec: { template: { source: { inline: 'x' } }, traffic } })],
    ['f-00001', 'f-00002', 'f-00003'].map((name) => RevisionSchema.parse({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Revision', metadata: { name, namespace: 'ns' }, spec: { function: 'f', template: { source: { inline: 'x' } } } })),
  );

const enc = new TextEncoder();
const hashOf = (key: string): Uint32Array => fnv64Update(fnv64Init(), enc.encode(key));

describe('traffic pick', () => {
  it('finds the first cumulative value above r', () => {
    const c = new Uint32Array([10, 30, 100]);
    expect([0, 9, 10, 29, 30, 99].map((r) => firstAbove(c, r))).toEqual([0, 0, 1, 1, 2, 2]);
  });

  it('splits 100 000 weighted draws within ±1 % of the percents', () => {
    const t = fnOf([
      { revisionName: 'f-00001', percent: 20 },
      { revisionName: 'f-00002', percent: 0, tag: 'dark' },
      { revisionName: 'f-00003', percent: 50 },
      { latestRevision: true, percent: 30 },
    ]).get('ns', 'f')!;
    // Seeded so the ±1 % bound is a property of the code, not of luck.
    const rand = seededRandom(42);
    const counts = new Map<string, number>();
    // Two targets name f-00003 (explicitly and as latest): they add up.
    for (let i = 0; i < 100_000; i++) {
      const r = pickWeighted(t, rand())!;
      counts.set(r.revision, (counts.get(r.revision) ?? 0) + 1);
    }
    expect(Math.abs(counts.get('f-00001')! / 100_000 - 0.2)).toBeLessThan(0.01);
    expect(Math.abs(counts.get('f-00003')! / 100_000 - 0.8)).toBeLessThan(0.01);
    expect(counts.has('f-00002')).toBe(false);
  });

  it('sticky pick follows docs/architecture.md: r = FNV(key) mod total, first target whose cumulative percent exceeds r', () => {
    const t = fnOf([
      { revisionName: 'f-00001', percent: 25 },
      { revisionName: 'f-00002', percent: 0 },
      { revisionName: 'f-00003', percent: 75 },
    ]).get('ns', 'f')!;
    fc.assert(
      fc.property(fc.string(), (key) => {
        const r = Number(fnv1a64(key) % 100n);
        const want = r < 25 ? 'f-00001' : 'f-00003';
        const h = hashOf(key);
        return pickSticky(t, h[0]!, h[1]!)!.revision === want;
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps a key on one revision, while keys overall follow the split', () => {
    const t = fnOf([
      { revisionName: 'f-00001', percent: 50 },
      { revisionName: 'f-00002', percent: 50 },
    ]).get('ns', 'f')!;
    let blue = 0;
    for (let i = 0; i < 20_000; i++) {
      const h = hashOf(`user-${i}`);
      const first = pickSticky(t, h[0]!, h[1]!)!.revision;
      for (let j = 0; j < 3; j++) expect(pickSticky(t, h[0]!, h[1]!)!.revision).toBe(first);
      if (first === 'f-00001') blue++;
    }
    expect(Math.abs(blue / 20_000 - 0.5)).toBeLessThan(0.03);
  });

  it('has no pick when every target is at 0 %', () => {
    const t = fnOf([{ revisionName: 'f-00001', percent: 0, tag: 'a' }]).get('ns', 'f')!;
    expect(pickWeighted(t, 0.5)).toBeUndefined();
    expect(t.tags.get('a')!.revision).toBe('f-00001');
  });
});
