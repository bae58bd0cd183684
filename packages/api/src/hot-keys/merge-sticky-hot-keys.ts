/**
 * The routers' hot sticky keys summed over replicas. Pure. Each replica counts the requests it
 * routed, so a key's rate is the sum of the rates the replicas list for it (a replica that does not
 * list it contributed less than its own listed keys: left out, as its error), its share that sum
 * over the function's summed rate, its owner-busy share the rate-weighted mean, and its owner's
 * in-flight the sum over the replicas that see the same owner.
 */
import type { RouterHotKeysResponse, StickyOwnerLoad } from '@orrery/spec';

export interface MergedStickyKey {
  key: string;
  rate: number;
  share: number;
  rateError: number;
  ownerBusyShare: number;
  owner: StickyOwnerLoad | null;
}

export interface MergedFunctionHotKeys {
  namespace: string;
  function: string;
  rate: number;
  boundRate: number;
  /** Replicas that listed this function. */
  replicas: number;
  keys: MergedStickyKey[];
}

const round = (x: number): number => (x === 0 || !Number.isFinite(x) ? 0 : Number(x.toPrecision(6)));

export function mergeStickyHotKeys(answers: readonly RouterHotKeysResponse[], limit: number): MergedFunctionHotKeys[] {
  const fns = new Map<string, { namespace: string; function: string; rate: number; boundRate: number; replicas: number; keys: Map<string, { rate: number; rateError: number; busy: number; owners: StickyOwnerLoad[] }> }>();
  for (const a of answers) {
    for (const f of a.functions) {
      const id = `${f.namespace}/${f.function}`;
      let m = fns.get(id);
      if (!m) fns.set(id, (m = { namespace: f.namespace, function: f.function, rate: 0, boundRate: 0, replicas: 0, keys: new Map() }));
      m.rate += f.rate;
      m.boundRate += f.boundRate;
      m.replicas++;
      for (const k of f.keys) {
        let e = m.keys.get(k.key);
        if (!e) m.keys.set(k.key, (e = { rate: 0, rateError: 0, busy: 0, owners: [] }));
        e.rate += k.rate;
        e.rateError += k.rateError;
        e.busy += k.ownerBusyShare * k.rate;
        if (k.owner) e.owners.push(k.owner);
      }
    }
  }
  const out: MergedFunctionHotKeys[] = [];
  for (const m of fns.values()) {
    const keys = [...m.keys.entries()]
      .map(([key, e]): MergedStickyKey => {
        // Every replica computes the same HRW owner from the same endpoints; the first one seen names it.
        const first = e.owners[0];
        const owner = first ? { ...first, inflight: e.owners.filter((o) => o.address === first.address).reduce((s, o) => s + o.inflight, 0) } : null;
        return {
          key,
          rate: round(e.rate),
          share: m.rate > 0 ? Math.min(1, round(e.rate / m.rate)) : 0,
          rateError: round(e.rateError),
          ownerBusyShare: e.rate > 0 ? Math.min(1, round(e.busy / e.rate)) : 0,
          owner,
        };
      })
      .sort((a, b) => b.rate - a.rate || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .slice(0, limit);
    out.push({ namespace: m.namespace, function: m.function, rate: round(m.rate), boundRate: round(m.boundRate), replicas: m.replicas, keys });
  }
  return out.sort((a, b) => a.namespace.localeCompare(b.namespace) || a.function.localeCompare(b.function));
}
