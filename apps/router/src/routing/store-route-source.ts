/**
 * `--store-url`: the routing table from the resource store (the operator serves it over HTTP).
 * Functions and Revisions are mirrored with list + watch; each change recompiles the table.
 * Traffic comes from `status.traffic` when the operator has resolved it (latestRevision is then
 * the latest *ready* revision, so a new revision takes traffic only once it can serve), else
 * from `spec.traffic` exactly as the routes file does.
 */
import type { OrreryFunction, Resource, Revision } from '@orrery/spec';
import { namespacedKey } from './namespaced-key.ts';
import { compileRoutes, type RouteTable } from './route-table.ts';
import type { RouteSource } from './routes-file.ts';
import { type ResourceStore, mirrorStore } from '@orrery/store/client';

/** The Function as the router should route it: spec.traffic replaced by the resolved status.traffic. */
export function withResolvedTraffic(fn: OrreryFunction): OrreryFunction {
  const resolved = fn.status?.traffic;
  if (!resolved || resolved.length === 0) return fn;
  return {
    ...fn,
    spec: {
      ...fn.spec,
      traffic: resolved.map((t) => ({ revisionName: t.revisionName, percent: t.percent, ...(t.tag ? { tag: t.tag } : {}) })),
    },
  };
}

export function compileStoreRoutes(functions: Iterable<Resource>, revisions: Iterable<Resource>): RouteTable {
  return compileRoutes(
    [...functions].map((f) => withResolvedTraffic(f as OrreryFunction)),
    [...revisions] as Revision[],
  );
}

/**
 * What the table is compiled from: spec generations, resolved traffic and the latest ready
 * revision. Status-only churn (worker counts, autoscaler decisions) leaves it unchanged, so
 * those events do not rebuild the table.
 */
export function routingFingerprint(functions: Iterable<Resource>, revisions: Iterable<Resource>): string {
  const parts: string[] = [];
  for (const f of functions) {
    const fn = f as OrreryFunction;
    // A Function being deleted gives up its custom domains (the claim rule): its deletion counts too.
    parts.push(`F ${namespacedKey(fn.metadata.namespace, fn.metadata.name)} ${fn.metadata.generation ?? 0} ${fn.status?.latestReadyRevision ?? ''} ${JSON.stringify(fn.status?.traffic ?? null)}${fn.metadata.deletionTimestamp ? ' deleting' : ''}`);
  }
  for (const r of revisions) parts.push(`R ${namespacedKey(r.metadata.namespace, r.metadata.name)} ${r.metadata.generation ?? 0} ${(r as Revision).spec.function}`);
  return parts.sort().join('\n');
}

export async function watchStoreRoutes(
  store: ResourceStore,
  onTable: (t: RouteTable) => void,
  onError: (err: unknown) => void,
  opts: { initialWaitMs?: number } = {},
): Promise<RouteSource> {
  let last: string | undefined;
  // The mirror retries every second while the store is down: report the first failure and every 30th.
  let failures = 0;
  const report = (err: unknown): void => {
    if (failures++ % 30 === 0) onError(err);
  };
  const mirror = mirrorStore({
    store,
    kinds: ['Function', 'Revision'],
    onChange: (objects) => {
      failures = 0; // the store answered again
      try {
        const functions = [...(objects.get('Function')?.values() ?? [])];
        const revisions = [...(objects.get('Revision')?.values() ?? [])];
        const fingerprint = routingFingerprint(functions, revisions);
        if (fingerprint === last) return;
        last = fingerprint;
        onTable(compileStoreRoutes(functions, revisions));
      } catch (err) {
        onError(err);
      }
    },
    onError: report,
  });
  // Serve with the first table when the store answers quickly; never block startup on it.
  let waited: NodeJS.Timeout | undefined;
  await Promise.race([mirror.ready, new Promise((r) => (waited = setTimeout(r, opts.initialWaitMs ?? 5_000)))]);
  clearTimeout(waited);
  return { stop: () => mirror.stop() };
}
