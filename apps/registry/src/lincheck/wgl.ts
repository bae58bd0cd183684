/**
 * A Wing–Gong–Lowe linearizability checker (the algorithm porcupine uses, with its memo of
 * visited (linearized-set, state) pairs). Pure: operations in, verdict out.
 */

export interface Operation<I, O> {
  /** Invocation and response times (any monotonic clock). `ret = Infinity` = outcome unknown. */
  call: number;
  ret: number;
  input: I;
  output: O;
}

export interface Model<S, I, O> {
  init(): S;
  /** Applies the input; returns whether `output` is a legal answer and the next state. */
  step(state: S, input: I, output: O): { ok: boolean; state: S };
  /** Stable serialization of a state, for the memo. */
  key(state: S): string;
}

export interface CheckResult {
  linearizable: boolean;
  /** Operations explored (for diagnostics). */
  steps: number;
  /** Set when the search gave up (budget exhausted): the verdict is then unknown. */
  timedOut?: boolean;
}

interface Entry {
  id: number;
  isCall: boolean;
  time: number;
  match?: Entry;
  prev?: Entry;
  next?: Entry;
  op: number;
}

function buildList<I, O>(ops: Array<Operation<I, O>>): Entry {
  const events: Entry[] = [];
  ops.forEach((op, i) => {
    const call: Entry = { id: i, isCall: true, time: op.call, op: i };
    const ret: Entry = { id: i, isCall: false, time: op.ret, op: i };
    call.match = ret;
    events.push(call, ret);
  });
  // Calls before returns at equal times: touching operations count as concurrent (permissive).
  events.sort((a, b) => a.time - b.time || (a.isCall === b.isCall ? 0 : a.isCall ? -1 : 1));
  const head: Entry = { id: -1, isCall: false, time: -Infinity, op: -1 };
  let prev = head;
  for (const e of events) {
    prev.next = e;
    e.prev = prev;
    prev = e;
  }
  return head;
}

function lift(e: Entry): void {
  e.prev!.next = e.next;
  if (e.next) e.next.prev = e.prev;
  const m = e.match!;
  m.prev!.next = m.next;
  if (m.next) m.next.prev = m.prev;
}

function unlift(e: Entry): void {
  const m = e.match!;
  m.prev!.next = m;
  if (m.next) m.next.prev = m;
  e.prev!.next = e;
  if (e.next) e.next.prev = e;
}

/** Checks that some total order of the operations, respecting real time, is legal for the model. */
export function checkLinearizable<S, I, O>(model: Model<S, I, O>, ops: Array<Operation<I, O>>, budget = 5_000_000): CheckResult {
  const head = buildList(ops);
  const linearized = new Uint8Array(ops.length);
  const memo = new Set<string>();
  const stack: Array<{ entry: Entry; state: S }> = [];
  let state = model.init();
  let entry = head.next;
  let steps = 0;
  const bitsKey = (): string => Buffer.from(linearized).toString('base64');
  while (head.next) {
    if (++steps > budget) return { linearizable: false, steps, timedOut: true };
    if (!entry) return { linearizable: false, steps };
    if (entry.isCall) {
      const op = ops[entry.op]!;
      const r = model.step(state, op.input, op.output);
      if (r.ok) {
        linearized[entry.op] = 1;
        const k = `${bitsKey()}|${model.key(r.state)}`;
        if (!memo.has(k)) {
          memo.add(k);
          stack.push({ entry, state });
          state = r.state;
          lift(entry);
          entry = head.next;
          continue;
        }
        linearized[entry.op] = 0;
      }
      entry = entry.next;
    } else {
      // A return whose call is not linearized yet: backtrack.
      const top = stack.pop();
      if (!top) return { linearizable: false, steps };
      entry = top.entry;
      state = top.state;
      linearized[entry.op] = 0;
      unlift(entry);
      entry = entry.next;
    }
  }
  return { linearizable: true, steps };
}
