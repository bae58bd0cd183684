import type { Model, Operation } from './wgl.ts';

/**
 * The definition of linearizability, executed literally: tries every total order of the
 * operations that respects real time (an operation that returned before another was called comes
 * first) and asks the model whether one of them explains every output. Exponential — for
 * cross-checking the WGL search on small histories only.
 */
export function bruteForceLinearizable<S, I, O>(model: Model<S, I, O>, ops: Array<Operation<I, O>>): boolean {
  if (ops.length > 10) throw new Error(`brute force is for at most 10 operations, not ${ops.length}`);
  const used = new Array<boolean>(ops.length).fill(false);
  const search = (state: S, placed: number): boolean => {
    if (placed === ops.length) return true;
    for (let i = 0; i < ops.length; i++) {
      if (used[i]) continue;
      const op = ops[i]!;
      // Every operation still unplaced must not have returned before this one was called.
      if (ops.some((o, j) => !used[j] && j !== i && o.ret < op.call)) continue;
      const r = model.step(state, op.input, op.output);
      if (!r.ok) continue;
      used[i] = true;
      const found = search(r.state, placed + 1);
      used[i] = false;
      if (found) return true;
    }
    return false;
  };
  return search(model.init(), 0);
}
