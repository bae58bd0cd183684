import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideAdmission, type OwnerSeen } from './teleport-decision.ts';

const TOUCH = 60_000;
const seen = (address: string, atMs: number): OwnerSeen => ({ address, atMs });

describe('decideAdmission', () => {
  it('a key with no live record is remembered, not counted', () => {
    expect(decideAdmission(undefined, 'A', 1_000, TOUCH)).toEqual({ kind: 'first' });
  });

  it('the same endpoint again is no teleport; the stamp is rewritten only once it is touchAfterMs old', () => {
    expect(decideAdmission(seen('A', 1_000), 'A', 1_000, TOUCH)).toEqual({ kind: 'same', rewrite: false });
    expect(decideAdmission(seen('A', 1_000), 'A', 1_000 + TOUCH - 1, TOUCH)).toEqual({ kind: 'same', rewrite: false });
    expect(decideAdmission(seen('A', 1_000), 'A', 1_000 + TOUCH, TOUCH)).toEqual({ kind: 'same', rewrite: true });
    expect(decideAdmission(seen('A', 1_000), 'A', 1_000, 0)).toEqual({ kind: 'same', rewrite: true });
  });

  it('another endpoint than last time is one teleport, from that endpoint', () => {
    expect(decideAdmission(seen('A', 1_000), 'B', 2_000, TOUCH)).toEqual({ kind: 'moved', from: 'A' });
    expect(decideAdmission(seen('B', 1_000), 'A', 1_000, TOUCH)).toEqual({ kind: 'moved', from: 'B' }); // equal stamp, smaller address wins
  });

  it('an admission older than the record, or losing the equal-stamp tie, changes nothing', () => {
    expect(decideAdmission(seen('A', 5_000), 'B', 4_999, TOUCH)).toEqual({ kind: 'older' });
    expect(decideAdmission(seen('A', 5_000), 'A', 4_000, TOUCH)).toEqual({ kind: 'older' });
    expect(decideAdmission(seen('A', 5_000), 'B', 5_000, TOUCH)).toEqual({ kind: 'older' });
  });

  it('property: a teleport exactly when the address differs and the admission wins the merge order', () => {
    fc.assert(
      fc.property(fc.constantFrom('A', 'B', 'C'), fc.integer({ min: 0, max: 10 }), fc.constantFrom('A', 'B', 'C'), fc.integer({ min: 0, max: 10 }), (pa, pt, a, t) => {
        const out = decideAdmission(seen(pa, pt), a, t, 3);
        const wins = t > pt || (t === pt && a < pa);
        if (a === pa) return t >= pt ? out.kind === 'same' && out.rewrite === t - pt >= 3 : out.kind === 'older';
        return wins ? out.kind === 'moved' && out.from === pa : out.kind === 'older';
      }),
    );
  });
});
