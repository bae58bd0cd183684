import { seededRandom } from '@orrery/spec';
import type { Operation } from './wgl.ts';
import { candidateSet, type Labels, type SelectorTerm, type SetInput, type SetOutput, type SetState } from './candidate-set-model.ts';

/** What a simulated registry answers to a query: the correct one reads the state at the query's linearization point. */
export type QueryAnswerer = (ctx: {
  /** State at the query's linearization point. */
  now: SetState;
  /** State as it was at any earlier time (a replica lagging behind). */
  at: (time: number) => SetState;
  time: number;
  selector: readonly SelectorTerm[];
}) => string[];

export const correctAnswer: QueryAnswerer = ({ now, selector }) => candidateSet(now, selector);

export interface SimulationOptions {
  seed: number;
  clients: number;
  opsPerClient: number;
  ids: readonly string[];
  /** Values of the `grp` label a register picks from; queries select `grp=<one of them>`, `grp!=…` or everything. */
  groups: readonly string[];
  /** Share of writes whose answer is lost (recorded as unknown; applied or not, at random). */
  unknownRate?: number;
  answer?: QueryAnswerer;
}

/**
 * A concurrent history of a registry, generated from a sequential execution: each client runs
 * operations one after another; every operation takes effect at a random instant inside its
 * call–return window (a lost write: maybe never, maybe even after its "return"), and outputs
 * come from applying the operations in the order of those instants. With `correctAnswer` the
 * history is linearizable by construction; another answerer simulates a broken registry.
 * Register labels carry the operation's number (`v`), so every registered content is unique.
 */
export function simulateHistory(o: SimulationOptions): { ops: Array<Operation<SetInput, SetOutput>>; staleQueries: number } {
  const rnd = seededRandom(o.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  interface Planned { call: number; ret: number; at: number; applied: boolean; lost: boolean; input: SetInput }
  const planned: Planned[] = [];
  let n = 0;
  for (let c = 0; c < o.clients; c++) {
    let t = rnd() * 5;
    for (let i = 0; i < o.opsPerClient; i++) {
      const call = t;
      const ret = call + 1 + rnd() * 9;
      const roll = rnd();
      let input: SetInput;
      if (roll < 0.35) input = { kind: 'register', id: pick(o.ids), labels: { grp: pick(o.groups), v: String(n) } };
      else if (roll < 0.5) input = { kind: 'deregister', id: pick(o.ids) };
      else if (roll < 0.6) input = { kind: 'heartbeat', id: pick(o.ids) };
      else {
        const g = pick(o.groups);
        const shape = rnd();
        const selector: SelectorTerm[] = shape < 0.4 ? [] : shape < 0.8 ? [{ key: 'grp', op: '=', value: g }] : [{ key: 'grp', op: '!=', value: g }];
        input = { kind: 'query', selector };
      }
      n++;
      const lost = input.kind !== 'query' && input.kind !== 'heartbeat' && rnd() < (o.unknownRate ?? 0);
      const applied = !lost || rnd() < 0.5;
      // A lost write that did apply may do so after its caller gave up.
      const at = lost ? call + rnd() * 30 : call + rnd() * (ret - call);
      planned.push({ call, ret, at, applied, lost, input });
      t = ret + rnd() * 3;
    }
  }
  const order = [...planned].sort((a, b) => a.at - b.at);
  const timeline: Array<{ time: number; state: SetState }> = [{ time: -Infinity, state: new Map() }];
  let state: Map<string, Labels> = new Map();
  const outputs = new Map<Planned, SetOutput>();
  let staleQueries = 0;
  const answer = o.answer ?? correctAnswer;
  const at = (time: number): SetState => {
    let s = timeline[0]!.state;
    for (const e of timeline) if (e.time <= time) s = e.state;
    return s;
  };
  for (const p of order) {
    const input = p.input;
    let out: SetOutput;
    switch (input.kind) {
      case 'register':
        if (p.applied) {
          state = new Map(state);
          state.set(input.id, input.labels);
        }
        out = { kind: 'ok' };
        break;
      case 'deregister': {
        const present = state.has(input.id);
        if (p.applied && present) {
          state = new Map(state);
          state.delete(input.id);
        }
        out = { kind: present ? 'ok' : 'not_found' };
        break;
      }
      case 'heartbeat':
        out = { kind: state.has(input.id) ? 'ok' : 'not_found' };
        break;
      case 'query': {
        const entries = answer({ now: state, at, time: p.at, selector: input.selector });
        const right = candidateSet(state, input.selector);
        if (entries.join(' ') !== right.join(' ')) staleQueries++;
        out = { kind: 'instances', entries };
        break;
      }
    }
    timeline.push({ time: p.at, state });
    outputs.set(p, p.lost ? { kind: 'unknown' } : out);
  }
  return { ops: planned.map((p) => ({ call: p.call, ret: p.ret, input: p.input, output: outputs.get(p)! })), staleQueries };
}
