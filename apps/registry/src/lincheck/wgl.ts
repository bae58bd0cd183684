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
  /**
   * When not linearizable: the longest partial linearization found (operation indices in
   * order), and the operation whose response came before it could be placed after that prefix —
   * where to start reading the history.
   */
  longestPrefix?: number[];
  blockedAt?: number;
}

interface Entry {
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
    const call: Entry = { isCall: true, time: op.call, op: i };
    const ret: Entry = { isCall: false, time: op.ret, op: i };
    call.match = ret;
    events.push(call, ret);
  });
  // Calls before returns at equal times: touching operations count as concurrent (permissive).
  events.sort((a, b) => a.time - b.time || (a.isCall === b.isCall ? 0 : a.isCall ? -1 : 1));
  const head: Entry = { isCall: false, time: -Infinity, op: -1 };
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

/**
 * The set of linearized operations as a bitset with two incremental 32-bit hashes (random
 * per-operation words XORed in and out), so a memo key costs O(1) instead of O(operations);
 * buckets keep the exact bitsets, so a hash collision never prunes a state by mistake.
 */
class LinearizedSet {
  readonly words: Uint32Array;
  private readonly z1: Uint32Array;
  private readonly z2: Uint32Array;
  h1 = 0;
  h2 = 0;

  constructor(n: number) {
    this.words = new Uint32Array(Math.ceil(n / 32) || 1);
    this.z1 = new Uint32Array(n);
    this.z2 = new Uint32Array(n);
    let x = 0x9e3779b9;
    const next = () => {
      // xorshift32: deterministic, so a verdict never depends on a run's luck.
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return x >>> 0;
    };
    for (let i = 0; i < n; i++) {
      this.z1[i] = next();
      this.z2[i] = next();
    }
  }

  toggle(i: number): void {
    this.words[i >>> 5]! ^= 1 << (i & 31);
    this.h1 = (this.h1 ^ this.z1[i]!) >>> 0;
    this.h2 = (this.h2 ^ this.z2[i]!) >>> 0;
  }

  hashKey(): string {
    return `${this.h1.toString(36)}.${this.h2.toString(36)}`;
  }

  equals(words: Uint32Array): boolean {
    for (let i = 0; i < words.length; i++) if (words[i] !== this.words[i]) return false;
    return true;
  }
}

/** Checks that some total order of the operations, respecting real time, is legal for the model. */
export function checkLinearizable<S, I, O>(model: Model<S, I, O>, ops: Array<Operation<I, O>>, budget = 5_000_000): CheckResult {
  const head = buildList(ops);
  const linearized = new LinearizedSet(ops.length);
  const memo = new Map<string, Uint32Array[]>();
  const stack: Array<{ entry: Entry; state: S }> = [];
  let state = model.init();
  let entry = head.next;
  let steps = 0;
  let longest: number[] = [];
  let longestLen = -1;
  let blockedAt: number | undefined;
  const fail = (timedOut?: boolean): CheckResult => ({ linearizable: false, steps, ...(timedOut ? { timedOut } : {}), longestPrefix: longest, blockedAt });
  while (head.next) {
    if (++steps > budget) return fail(true);
    if (!entry) return fail();
    if (entry.isCall) {
      const op = ops[entry.op]!;
      const r = model.step(state, op.input, op.output);
      if (r.ok) {
        linearized.toggle(entry.op);
        const k = `${linearized.hashKey()}|${model.key(r.state)}`;
        const bucket = memo.get(k);
        if (!bucket?.some((w) => linearized.equals(w))) {
          if (bucket) bucket.push(linearized.words.slice());
          else memo.set(k, [linearized.words.slice()]);
          stack.push({ entry, state });
          state = r.state;
          lift(entry);
          entry = head.next;
          continue;
        }
        linearized.toggle(entry.op);
      }
      entry = entry.next;
    } else {
      // A return whose call is not linearized yet: backtrack.
      if (stack.length > longestLen) {
        longestLen = stack.length;
        longest = stack.map((s) => s.entry.op);
        blockedAt = entry.op;
      }
      const top = stack.pop();
      if (!top) return fail();
      entry = top.entry;
      state = top.state;
      linearized.toggle(entry.op);
      unlift(entry);
      entry = entry.next;
    }
  }
  return { linearizable: true, steps };
}
