/**
 * The candidate-set check: every query answer must equal the set of matching instances at one
 * linearizable point. Named histories it must accept and reject, histories a per-instance check
 * cannot catch, generated histories of a correct registry (accepted) and of deliberately broken
 * ones — a replica that skips the read barrier, one whose label index keeps an old group, one
 * that loses deregistrations — which it must reject.
 */
import { describe, expect, it } from 'vitest';
import { checkLinearizable, type Operation } from './wgl.ts';
import { prepareHistory } from './prepare-history.ts';
import { registryModel, type RegistryInput, type RegistryOutput } from './registry-model.ts';
import {
  candidateSet,
  candidateSetModel,
  instanceEntry,
  selectorParam,
  type Labels,
  type SelectorTerm,
  type SetInput,
  type SetOutput,
} from './candidate-set-model.ts';
import { simulateHistory, type QueryAnswerer } from './simulated-history.ts';

type Op = Operation<SetInput, SetOutput>;
const reg = (call: number, ret: number, id: string, labels: Labels): Op => ({ call, ret, input: { kind: 'register', id, labels }, output: { kind: 'ok' } });
const lostReg = (call: number, id: string, labels: Labels): Op => ({ call, ret: call + 1, input: { kind: 'register', id, labels }, output: { kind: 'unknown' } });
const dereg = (call: number, ret: number, id: string, found = true): Op => ({ call, ret, input: { kind: 'deregister', id }, output: { kind: found ? 'ok' : 'not_found' } });
const hb = (call: number, ret: number, id: string, found = true): Op => ({ call, ret, input: { kind: 'heartbeat', id }, output: { kind: found ? 'ok' : 'not_found' } });
/** A query answering the instances given as [id, labels] pairs. */
const query = (call: number, ret: number, selector: SelectorTerm[], ...found: Array<[string, Labels]>): Op => ({
  call,
  ret,
  input: { kind: 'query', selector },
  output: { kind: 'instances', entries: found.map(([id, l]) => instanceEntry(id, l)).sort() },
});
const all: SelectorTerm[] = [];
const grp = (g: string): SelectorTerm[] => [{ key: 'grp', op: '=', value: g }];
const notGrp = (g: string): SelectorTerm[] => [{ key: 'grp', op: '!=', value: g }];
const check = (ops: Op[]) => checkLinearizable(candidateSetModel, prepareHistory(ops));
const accepts = (ops: Op[]) => check(ops).linearizable;

const A1 = { grp: 'a', v: '1' };
const A2 = { grp: 'a', v: '2' };
const B1 = { grp: 'b', v: '1' };
const B2 = { grp: 'b', v: '2' };

describe('candidate-set model', () => {
  it('renders instances canonically and selects like the registry (!= matches a missing key)', () => {
    expect(instanceEntry('x', { v: '1', grp: 'a' })).toBe('x{grp=a,v=1}');
    expect(instanceEntry('x', {})).toBe('x{}');
    const state = new Map<string, Labels>([['x', A1], ['y', B1], ['z', { v: '9' }]]);
    expect(candidateSet(state, grp('a'))).toEqual(['x{grp=a,v=1}']);
    expect(candidateSet(state, notGrp('a'))).toEqual(['y{grp=b,v=1}', 'z{v=9}']);
    expect(candidateSet(state, [...grp('a'), { key: 'v', op: '=', value: '2' }])).toEqual([]);
    expect(candidateSet(state, all)).toHaveLength(3);
    expect(selectorParam([...grp('a'), { key: 'v', op: '!=', value: '2' }])).toBe('grp=a,v!=2');
  });
});

describe('candidate-set check: accepted histories', () => {
  it('a sequential history with moves between groups', () => {
    expect(accepts([
      reg(0, 1, 'x', A1),
      reg(2, 3, 'y', B1),
      query(4, 5, grp('a'), ['x', A1]),
      query(4, 5, all, ['x', A1], ['y', B1]),
      reg(6, 7, 'x', B2),
      query(8, 9, grp('a')),
      query(8, 9, grp('b'), ['x', B2], ['y', B1]),
      query(8, 9, notGrp('b')),
      hb(10, 11, 'y'),
      dereg(12, 13, 'y'),
      query(14, 15, all, ['x', B2]),
      hb(16, 17, 'y', false),
    ])).toBe(true);
  });

  it('a query overlapping a move may see the instance in either group, but in exactly one', () => {
    const base = [reg(0, 1, 'x', A1)];
    expect(accepts([...base, reg(2, 10, 'x', B1), query(3, 4, grp('a'), ['x', A1]), query(5, 6, grp('b'), ['x', B1])])).toBe(true);
    expect(accepts([...base, reg(2, 10, 'x', B1), query(3, 4, all, ['x', A1])])).toBe(true);
    expect(accepts([...base, reg(2, 10, 'x', B1), query(3, 4, all, ['x', B1])])).toBe(true);
  });

  it('concurrent writes seen in one order by every overlapping query', () => {
    expect(accepts([reg(0, 10, 'x', A1), reg(0, 10, 'y', B1), query(1, 2, all, ['x', A1]), query(3, 4, all, ['x', A1], ['y', B1])])).toBe(true);
  });

  it('a lost register may show up late, or never', () => {
    expect(accepts([lostReg(0, 'x', A1), query(5, 6, all), query(7, 8, all, ['x', A1])])).toBe(true);
    expect(accepts([lostReg(0, 'x', A1), query(5, 6, all), query(7, 8, all)])).toBe(true);
  });
});

describe('candidate-set check: rejected histories', () => {
  it('a stale set: an acknowledged register missing from a later answer', () => {
    expect(accepts([reg(0, 1, 'x', A1), reg(2, 3, 'y', A2), query(4, 5, grp('a'), ['x', A1])])).toBe(false);
  });

  it('a set that never existed at one point, though each member existed at some point — a per-instance check passes it', () => {
    // x is deregistered (returns at 3) before y's register is even called (4); the query spans
    // both and answers {x, y}: x still there means before 3, y there means after 4.
    const history = [reg(0, 1, 'x', A1), dereg(2, 3, 'x'), reg(4, 5, 'y', A2), query(1.5, 6, all, ['x', A1], ['y', A2])];
    expect(accepts(history)).toBe(false);
    // Split per instance — what registry-model.ts checks, with one-instance queries — each part is fine.
    type R = Operation<RegistryInput, RegistryOutput>;
    const perX: R[] = [
      { call: 0, ret: 1, input: { kind: 'register', id: 'x', value: '1' }, output: { kind: 'ok' } },
      { call: 2, ret: 3, input: { kind: 'deregister', id: 'x' }, output: { kind: 'ok' } },
      { call: 1.5, ret: 6, input: { kind: 'query', id: 'x' }, output: { kind: 'instances', entries: ['x=1'] } },
    ];
    const perY: R[] = [
      { call: 4, ret: 5, input: { kind: 'register', id: 'y', value: '2' }, output: { kind: 'ok' } },
      { call: 1.5, ret: 6, input: { kind: 'query', id: 'y' }, output: { kind: 'instances', entries: ['y=2'] } },
    ];
    expect(checkLinearizable(registryModel, perX).linearizable).toBe(true);
    expect(checkLinearizable(registryModel, perY).linearizable).toBe(true);
  });

  it('two queries that see two concurrent registers in opposite orders (even while all four overlap)', () => {
    // One total order: if a query sees x without y, no query can see y without x.
    expect(accepts([reg(0, 10, 'x', A1), reg(0, 10, 'y', B1), query(1, 9, all, ['x', A1]), query(1, 9, all, ['y', B1])])).toBe(false);
    expect(accepts([reg(0, 10, 'x', A1), reg(0, 10, 'y', B1), query(1, 2, all, ['x', A1]), query(3, 4, all, ['y', B1])])).toBe(false);
    // The same queries agreeing on one order are fine.
    expect(accepts([reg(0, 10, 'x', A1), reg(0, 10, 'y', B1), query(1, 9, all, ['x', A1]), query(1, 9, all, ['x', A1], ['y', B1])])).toBe(true);
  });

  it('an instance answered with labels it never had at once (a torn record)', () => {
    expect(accepts([reg(0, 1, 'x', A1), reg(2, 3, 'x', B2), query(4, 5, all, ['x', { grp: 'a', v: '2' }])])).toBe(false);
  });

  it('an instance outside the selector, or a matching one left out', () => {
    expect(accepts([reg(0, 1, 'x', A1), reg(0, 1, 'y', B1), query(2, 3, grp('a'), ['x', A1], ['y', B1])])).toBe(false);
    expect(accepts([reg(0, 1, 'x', A1), reg(0, 1, 'y', { v: '7' }), query(2, 3, notGrp('a'))])).toBe(false);
  });

  it('an instance still answered in its old group after its move returned (a stale label index)', () => {
    expect(accepts([reg(0, 1, 'x', A1), reg(2, 3, 'x', B1), query(4, 5, grp('a'), ['x', A1])])).toBe(false);
    expect(accepts([reg(0, 1, 'x', A1), reg(2, 3, 'x', B1), query(4, 5, grp('a'), ['x', B1])])).toBe(false);
  });

  it('a deregistered instance that comes back, and a lost register seen then unseen', () => {
    expect(accepts([reg(0, 1, 'x', A1), dereg(2, 3, 'x'), query(4, 5, all, ['x', A1])])).toBe(false);
    expect(accepts([lostReg(0, 'x', A1), query(4, 5, all, ['x', A1]), query(6, 7, all)])).toBe(false);
  });

  it('write answers that contradict the set: a deregister of an absent instance answered ok, a heartbeat of a present one not_found', () => {
    expect(accepts([query(0, 1, all), dereg(2, 3, 'x', true)])).toBe(false);
    expect(accepts([reg(0, 1, 'x', A1), query(2, 3, all, ['x', A1]), hb(4, 5, 'x', false)])).toBe(false);
  });

  it('says where the search got stuck', () => {
    const history = [reg(0, 1, 'x', A1), reg(2, 3, 'y', A2), query(4, 5, grp('a'), ['x', A1])];
    const verdict = check(history);
    expect(verdict.linearizable).toBe(false);
    expect(verdict.longestPrefix).toEqual([0, 1]);
    expect(verdict.blockedAt).toBe(2);
  });
});

describe('generated histories', () => {
  const base = { clients: 6, opsPerClient: 60, ids: ['p', 'q', 'r', 's', 't'], groups: ['a', 'b'] };

  it('a correct registry: 40 generated histories of 360 operations (some writes lost) are accepted, quickly', () => {
    const started = performance.now();
    for (let seed = 1; seed <= 40; seed++) {
      const { ops } = simulateHistory({ ...base, seed, unknownRate: 0.03 });
      const verdict = check(ops);
      expect(verdict.timedOut, `seed ${seed}`).toBeFalsy();
      expect(verdict.linearizable, `seed ${seed}`).toBe(true);
    }
    expect(performance.now() - started).toBeLessThan(20_000);
  });

  /** Each broken registry must be caught in every seed (and must really have answered wrongly). */
  const mustCatch = (broken: () => QueryAnswerer) => {
    for (let seed = 1; seed <= 20; seed++) {
      const { ops, staleQueries } = simulateHistory({ ...base, seed, answer: broken() });
      expect(staleQueries, `seed ${seed}: the broken registry never answered wrongly`).toBeGreaterThan(0);
      const verdict = check(ops);
      expect(verdict.timedOut, `seed ${seed}`).toBeFalsy();
      expect(verdict.linearizable, `seed ${seed}`).toBe(false);
    }
  };

  it('rejects a replica that skips the read barrier (answers from its index 25 time units behind)', () => {
    mustCatch(() => ({ at, time, selector }) => candidateSet(at(time - 25), selector));
  });

  it('rejects a label index that keeps an instance in the group it left', () => {
    mustCatch(() => {
      const formerGroups = new Map<string, Set<string>>();
      return ({ now, selector }) => {
      for (const [id, labels] of now) {
        const seen = formerGroups.get(id) ?? new Set<string>();
        seen.add(labels.grp!);
        formerGroups.set(id, seen);
      }
      const eq = selector.find((t) => t.op === '=');
      const out = new Set(candidateSet(now, selector));
      if (eq) for (const [id, labels] of now) if (formerGroups.get(id)?.has(eq.value)) out.add(instanceEntry(id, labels));
      return [...out].sort();
      };
    });
  });

  it('rejects a registry whose answers forget deregistrations (the model must not)', () => {
    mustCatch(() => {
      const ever = new Map<string, Labels>();
      return ({ now, selector }) => {
        for (const [id, labels] of now) ever.set(id, labels);
        return candidateSet(ever, selector);
      };
    });
  });
});
