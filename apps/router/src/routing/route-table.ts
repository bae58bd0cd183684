/**
 * The routing table compiled from Function and Revision resources once per change, so the hot
 * path is a Map lookup plus arithmetic: no zod, no YAML, no string building per request.
 */
import { revisionNumber, type OrreryFunction, type Revision } from '@orrery/spec';
import { namespacedKey } from './namespaced-key.ts';
import { compileDomainRoutes, type DomainRoute } from './domain-routes.ts';

export interface RevisionRoute {
  namespace: string;
  function: string;
  revision: string;
  /** `<namespace>/<revision>`: the key of the endpoint index, queues and stats. */
  key: string;
  /** Admission capacity per endpoint; 0 = unlimited. */
  containerConcurrency: number;
  timeoutMs: number;
  /** `spec.template.onWorkerLoss: replay`: requests carry a minted Orrery-Invocation-Id and are replayed on another worker when theirs dies (data-plane.ts). */
  replayOnWorkerLoss: boolean;
}

export interface TrafficRoute {
  route: RevisionRoute;
  percent: number;
  tag: string | undefined;
}

export interface StickyRoute {
  source: 'header' | 'queryparam' | 'cookie';
  /** Header names are matched lower-cased (node lower-cases incoming names); query and cookie names exactly. */
  name: string;
}

export interface FunctionRoute {
  namespace: string;
  name: string;
  /** `<namespace>/<function>`: the key of per-function stats and teleport buckets. */
  key: string;
  /** Targets with percent > 0, in `spec.traffic` order. */
  weighted: TrafficRoute[];
  /** Running sums of `weighted` percents: the target for r is the first with cumulative > r. */
  cumulative: Uint32Array;
  totalPercent: number;
  tags: Map<string, RevisionRoute>;
  sticky: StickyRoute | undefined;
}

export class RouteTable {
  /** namespace → name → route: two lookups, no key string built per request. */
  private readonly byNamespace = new Map<string, Map<string, FunctionRoute>>();

  constructor(
    private readonly functions: Map<string, FunctionRoute>,
    readonly revisions: Map<string, RevisionRoute>,
    /** Custom domains (spec.domains): exact host → the Function holding it (domain-routes.ts). */
    readonly hosts: ReadonlyMap<string, DomainRoute> = new Map(),
  ) {
    for (const f of functions.values()) {
      let m = this.byNamespace.get(f.namespace);
      if (!m) this.byNamespace.set(f.namespace, (m = new Map()));
      m.set(f.name, f);
    }
  }

  static empty(): RouteTable {
    return new RouteTable(new Map(), new Map());
  }

  get(namespace: string, name: string): FunctionRoute | undefined {
    return this.byNamespace.get(namespace)?.get(name);
  }

  list(): FunctionRoute[] {
    return [...this.functions.values()];
  }

  namespaces(): string[] {
    return [...new Set([...this.functions.values()].map((f) => f.namespace))].sort();
  }
}

/** The highest-numbered Revision of a function, the default meaning of `latestRevision`. */
function latestRevisionOf(fn: OrreryFunction, revisions: readonly Revision[]): string | undefined {
  if (fn.status?.latestReadyRevision) return fn.status.latestReadyRevision;
  let best: string | undefined;
  let bestN = -1;
  for (const r of revisions) {
    if (r.metadata.namespace !== fn.metadata.namespace || r.spec.function !== fn.metadata.name) continue;
    const n = revisionNumber(r.metadata.name);
    if (Number.isFinite(n) && n > bestN) {
      bestN = n;
      best = r.metadata.name;
    }
  }
  return best;
}

export function compileRoutes(functions: readonly OrreryFunction[], revisions: readonly Revision[]): RouteTable {
  const revByKey = new Map<string, Revision>();
  for (const r of revisions) revByKey.set(namespacedKey(r.metadata.namespace, r.metadata.name), r);
  const fnRoutes = new Map<string, FunctionRoute>();
  const revRoutes = new Map<string, RevisionRoute>();

  const revisionRoute = (fn: OrreryFunction, name: string): RevisionRoute => {
    const key = namespacedKey(fn.metadata.namespace, name);
    const existing = revRoutes.get(key);
    if (existing) return existing;
    // A revision named by traffic but absent from the source borrows the function's template.
    const template = revByKey.get(key)?.spec.template ?? fn.spec.template;
    const route: RevisionRoute = {
      namespace: fn.metadata.namespace,
      function: fn.metadata.name,
      revision: name,
      key,
      containerConcurrency: Math.max(0, template.containerConcurrency),
      timeoutMs: Math.max(1, template.timeoutSeconds) * 1000,
      replayOnWorkerLoss: template.onWorkerLoss === 'replay',
    };
    revRoutes.set(key, route);
    return route;
  };

  for (const fn of functions) {
    const latest = latestRevisionOf(fn, revisions);
    const traffic = fn.spec.traffic.length > 0 ? fn.spec.traffic : [{ latestRevision: true, percent: 100 }];
    const weighted: TrafficRoute[] = [];
    const tags = new Map<string, RevisionRoute>();
    for (const t of traffic) {
      const name = t.revisionName ?? (t.latestRevision ? latest : undefined);
      if (!name) continue;
      const route = revisionRoute(fn, name);
      const tag = 'tag' in t ? t.tag : undefined;
      if (tag) tags.set(tag, route);
      if (t.percent > 0) weighted.push({ route, percent: t.percent, tag });
    }
    const cumulative = new Uint32Array(weighted.length);
    let total = 0;
    weighted.forEach((w, i) => (cumulative[i] = total += w.percent));
    // Revisions of the function not in traffic still get routes, so their endpoints have a home in stats.
    for (const r of revisions) if (r.metadata.namespace === fn.metadata.namespace && r.spec.function === fn.metadata.name) revisionRoute(fn, r.metadata.name);
    const sticky = fn.spec.state?.sticky;
    const key = namespacedKey(fn.metadata.namespace, fn.metadata.name);
    fnRoutes.set(key, {
      namespace: fn.metadata.namespace,
      name: fn.metadata.name,
      key,
      weighted,
      cumulative,
      totalPercent: total,
      tags,
      sticky: sticky && sticky.name ? { source: sticky.source, name: sticky.source === 'header' ? sticky.name.toLowerCase() : sticky.name } : undefined,
    });
  }
  return new RouteTable(fnRoutes, revRoutes, compileDomainRoutes(functions, fnRoutes));
}
