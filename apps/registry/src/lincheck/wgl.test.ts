import { describe, expect, it } from 'vitest';
import { checkLinearizable, type Operation } from './wgl.ts';
import { prepareHistory, registryModel, type RegistryInput, type RegistryOutput } from './registry-model.ts';

type Op = Operation<RegistryInput, RegistryOutput>;
const reg = (call: number, ret: number, id: string, value: string): Op => ({ call, ret, input: { kind: 'register', id, value }, output: { kind: 'ok' } });
const dereg = (call: number, ret: number, id: string, found = true): Op => ({ call, ret, input: { kind: 'deregister', id }, output: { kind: found ? 'ok' : 'not_found' } });
const hb = (call: number, ret: number, id: string, found = true): Op => ({ call, ret, input: { kind: 'heartbeat', id }, output: { kind: found ? 'ok' : 'not_found' } });
const query = (call: number, ret: number, ...entries: string[]): Op => ({ call, ret, input: { kind: 'query' }, output: { kind: 'instances', entries } });
const check = (ops: Op[]) => checkLinearizable(registryModel, prepareHistory(ops)).linearizable;

describe('WGL checker on the registry model', () => {
  it('accepts a sequential history', () => {
    expect(check([reg(0, 1, 'a', 'v1'), query(2, 3, 'a=v1'), hb(4, 5, 'a'), dereg(6, 7, 'a'), query(8, 9), hb(10, 11, 'a', false)])).toBe(true);
  });

  it('rejects a stale read after an acknowledged write (the classic non-linearizable history)', () => {
    expect(check([reg(0, 1, 'a', 'v1'), query(2, 3)])).toBe(false);
  });

  it('rejects a read that goes back in time (non-monotonic)', () => {
    expect(check([reg(0, 10, 'a', 'v1'), query(1, 2, 'a=v1'), query(3, 4)])).toBe(false);
  });

  it('accepts either order for overlapping operations', () => {
    expect(check([reg(0, 10, 'a', 'v1'), query(1, 2), query(3, 4, 'a=v1')])).toBe(true);
    expect(check([reg(0, 10, 'a', 'v1'), reg(1, 9, 'a', 'v2'), query(11, 12, 'a=v1')])).toBe(true);
    expect(check([reg(0, 10, 'a', 'v1'), reg(1, 9, 'a', 'v2'), query(11, 12, 'a=v2')])).toBe(true);
  });

  it('rejects a value nobody wrote and a deregister of an absent instance answered ok', () => {
    expect(check([reg(0, 1, 'a', 'v1'), query(2, 3, 'a=v9')])).toBe(false);
    expect(check([dereg(0, 1, 'a', true)])).toBe(false);
  });

  it('rejects two readers seeing the writes of two writers in opposite orders', () => {
    // Both writes overlap both reads, but a reader sees a-only and another b-only after both
    // writes returned: no single order explains it.
    expect(check([reg(0, 5, 'a', '1'), reg(0, 5, 'b', '1'), query(6, 7, 'a=1'), query(6, 7, 'b=1')])).toBe(false);
  });

  it('treats failed writes as maybe-applied and failed reads as absent', () => {
    const unknownReg: Op = { call: 0, ret: 1, input: { kind: 'register', id: 'a', value: 'v1' }, output: { kind: 'unknown' } };
    const unknownQuery: Op = { call: 2, ret: 3, input: { kind: 'query' }, output: { kind: 'unknown' } };
    expect(check([unknownReg, query(2, 3), query(4, 5, 'a=v1')])).toBe(true);
    expect(check([unknownReg, unknownQuery])).toBe(true);
    // …but once seen it cannot vanish again.
    expect(check([unknownReg, query(4, 5, 'a=v1'), query(6, 7)])).toBe(false);
  });

  it('handles a few hundred concurrent operations quickly', () => {
    const ops: Op[] = [];
    let t = 0;
    const state = new Map<string, string>();
    for (let i = 0; i < 300; i++) {
      const id = `i${i % 4}`;
      if (i % 3 === 0) {
        state.set(id, `v${i}`);
        ops.push(reg(t, t + 3, id, `v${i}`));
      } else if (i % 3 === 1) {
        ops.push(query(t + 4, t + 5, ...[...state].map(([k, v]) => `${k}=${v}`).sort()));
      } else {
        ops.push(hb(t + 4, t + 6, id, state.has(id)));
      }
      t += 6;
    }
    const started = Date.now();
    expect(check(ops)).toBe(true);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
