import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SlotList } from './slot-list.ts';

const member = (id: number) => ({ id, slotIndex: -1 });

describe('SlotList', () => {
  it('behaves as a Set for any sequence of adds and deletes', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 9 })), { maxLength: 200 }), (ops) => {
        const members = Array.from({ length: 10 }, (_, i) => member(i));
        const list = new SlotList<(typeof members)[number]>();
        const model = new Set<number>();
        for (const [add, id] of ops) {
          if (add) {
            list.add(members[id]!);
            model.add(id);
          } else expect(list.delete(members[id]!)).toBe(model.delete(id));
          expect(list.size).toBe(model.size);
        }
        for (const m of members) expect(list.has(m)).toBe(model.has(m.id));
        const seen: number[] = [];
        list.forEach((m) => seen.push(m.id));
        expect(seen.sort()).toEqual([...model].sort());
        for (const m of members) if (!model.has(m.id)) expect(m.slotIndex).toBe(-1);
      }),
    );
  });

  it('forEach may remove the member it is given, or others', () => {
    const ms = Array.from({ length: 6 }, (_, i) => member(i));
    const list = new SlotList<(typeof ms)[number]>();
    for (const m of ms) list.add(m);
    const visited: number[] = [];
    list.forEach((m) => {
      visited.push(m.id);
      list.delete(m);
      if (m.id === 4) list.delete(ms[1]!); // one not visited yet
    });
    expect(list.size).toBe(0);
    expect(visited).not.toContain(1);
    expect(new Set(visited)).toEqual(new Set([0, 2, 3, 4, 5]));
  });

  it('a member added during forEach is kept, not visited', () => {
    const [a, b] = [member(1), member(2)];
    const list = new SlotList<typeof a>();
    list.add(a);
    const visited: number[] = [];
    list.forEach((m) => {
      visited.push(m.id);
      list.delete(m);
      list.add(b);
    });
    expect([visited, list.size, list.has(b)]).toEqual([[1], 1, true]);
  });
});
