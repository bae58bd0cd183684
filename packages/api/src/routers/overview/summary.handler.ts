import { and, desc, eq, gte } from 'drizzle-orm';
import { auditLog, functionRollups } from '@orrery/db';
import { effectiveKeyspace, effectiveMaxKeys, StateNamespacesResponseSchema, type OrreryFunction, type RegistryCluster, type Revision, type StateSync } from '@orrery/spec';
import { fetchRouterStats } from '../../clients/router-stats.ts';
import { statesvcAdminGet, type NamespaceUsage } from '../../clients/statesvc-admin.ts';
import { storeCall } from '../../errors.ts';
import { protectedProcedure } from '../../trpc.ts';
import { isBackingOff, syncPeriodSeconds } from '../../health/statesync-replica-health.ts';
import { sumReplicas } from '../sticky/sum-replicas.ts';
import { hotKeyAlerts, learnerLagAlerts, quotaAlerts, sortAlerts, stateSyncBackoffAlerts, teleportSpikeAlerts, TELEPORT_WINDOW_MINUTES } from './alert-rules.ts';
import { hotKeyAlertInputs } from './hot-key-alert-inputs.ts';
import { readStateHotKeys, readStickyHotKeys } from '../../hot-keys/read-hot-keys.ts';
import { functionHealth, registryClusterHealth, replicasHealth, stateSyncHealth, worstHealth, type HealthVerdict } from '../../health/health-from-conditions.ts';
import { probeStatesvc } from './probe-statesvc.ts';
import { OverviewSummaryInput } from './summary.schema.ts';

type UsageRead = { ok: true; namespaces: NamespaceUsage[] } | { ok: false; error: string };

export const summary = protectedProcedure(
  'viewer',
  'At a glance: health of every component (functions, statesvc, router replicas, registry clusters, statesync), counts, recent audit rows and alerts.',
)
  .input(OverviewSummaryInput)
  .query(async ({ ctx, input }) => {
    const now = ctx.now?.() ?? new Date();
    const ns = input.namespace;
    // Every upstream is read at once; statesvc and routers report failures instead of throwing,
    // so one silent component shows as Unknown/Degraded rather than blanking the page.
    const [fns, revs, clusters, syncs, statesvcProbe, routers, usage, rollups, audit, stateHot, stickyHot] = await Promise.all([
      storeCall(() => ctx.store.list('Function', { namespace: ns })).then((r) => r.items as OrreryFunction[]),
      storeCall(() => ctx.store.list('Revision', { namespace: ns })).then((r) => r.items as Revision[]),
      storeCall(() => ctx.store.list('RegistryCluster', { namespace: ns })).then((r) => r.items as RegistryCluster[]),
      storeCall(() => ctx.store.list('StateSync', { namespace: ns })).then((r) => r.items as StateSync[]),
      probeStatesvc(ctx),
      fetchRouterStats(ctx),
      readUsage(ctx, ns),
      ctx.db.db
        .select({ namespace: functionRollups.namespace, function: functionRollups.function, minute: functionRollups.minute, teleports: functionRollups.teleports })
        .from(functionRollups)
        .where(and(gte(functionRollups.minute, new Date(now.getTime() - TELEPORT_WINDOW_MINUTES * 60_000)), ns ? eq(functionRollups.namespace, ns) : undefined)),
      input.auditLimit > 0
        ? ctx.db.db
            .select({ id: auditLog.id, at: auditLog.at, who: auditLog.who, role: auditLog.role, action: auditLog.action, target: auditLog.target, result: auditLog.result, error: auditLog.error })
            .from(auditLog)
            .orderBy(desc(auditLog.id))
            .limit(input.auditLimit)
        : Promise.resolve([]),
      // The hottest key per keyspace, and a few per sticky function for the owner check.
      readStateHotKeys(ctx, { namespace: ns, limit: 1 }),
      readStickyHotKeys(ctx, { namespace: ns, limit: 3 }),
    ]);

    const sticky = new Map(sumReplicas(routers, { namespace: ns }).map((t) => [`${t.namespace}/${t.function}`, t]));
    const keyspaceUsage = new Map<string, { keys: number; maxKeys: number | null }>();
    if (usage.ok) for (const n of usage.namespaces) for (const k of n.keyspaces) keyspaceUsage.set(`${n.namespace}/${k.keyspace}`, k);
    const revisionsOf = new Map<string, number>();
    for (const r of revs) revisionsOf.set(`${r.metadata.namespace}/${r.spec.function}`, (revisionsOf.get(`${r.metadata.namespace}/${r.spec.function}`) ?? 0) + 1);

    const functions = fns.map((f) => {
      const key = `${f.metadata.namespace}/${f.metadata.name}`;
      const s = sticky.get(key);
      const keyspace = f.spec.state ? effectiveKeyspace(f.metadata.name, f.spec.state) : null;
      const used = keyspace ? keyspaceUsage.get(`${f.metadata.namespace}/${keyspace}`) : undefined;
      const maxKeys = used?.maxKeys || effectiveMaxKeys(f.spec.state);
      return {
        namespace: f.metadata.namespace,
        name: f.metadata.name,
        ...functionHealth(f),
        latestCreatedRevision: f.status?.latestCreatedRevision ?? null,
        latestReadyRevision: f.status?.latestReadyRevision ?? null,
        revisions: revisionsOf.get(key) ?? 0,
        traffic: f.status?.traffic ?? [],
        // Router counters since each replica started (summed); null = no replica has seen it.
        requests: s?.requests ?? null,
        teleports: s?.teleports ?? null,
        hitRatio: s?.hitRatio ?? null,
        state: keyspace ? { keyspace, keys: used?.keys ?? null, maxKeys, keysPercent: used ? Math.round((used.keys / maxKeys) * 1000) / 10 : null } : null,
      };
    });
    const registryClusters = clusters.map((c) => {
      const members = c.status?.members ?? [];
      return {
        namespace: c.metadata.namespace,
        name: c.metadata.name,
        ...registryClusterHealth(c),
        leader: c.status?.leader ?? null,
        replicas: c.spec.replicas,
        voters: members.filter((m) => m.role === 'voter').length,
        learners: members.filter((m) => m.role === 'learner').length,
      };
    });
    const stateSyncs = syncs.map((s) => ({
      namespace: s.metadata.namespace,
      name: s.metadata.name,
      ...stateSyncHealth(s),
      replicas: (s.status?.replicas ?? []).length,
      backingOff: (s.status?.replicas ?? []).filter((r) => isBackingOff(r, syncPeriodSeconds(s.spec.syncPeriod))).length,
    }));
    const routerReplicas = routers.map((r) => ({ url: r.url, ok: r.ok, error: r.error ?? null }));

    const statesvc: HealthVerdict =
      statesvcProbe.health === 'Healthy' && !usage.ok && ctx.statesvc
        ? { health: 'Degraded', message: `answers /healthz but the usage read failed: ${usage.error}` }
        : statesvcProbe;
    const components = [
      { id: 'functions', label: 'Functions', link: '/functions', ...worstHealth(functions, 'no functions') },
      { id: 'statesvc', label: 'statesvc', link: '/state', ...statesvc },
      { id: 'router', label: 'Router replicas', link: '/sticky', ...replicasHealth(routerReplicas) },
      { id: 'registry', label: 'Registry clusters', link: '/registry', ...worstHealth(registryClusters, 'no registry clusters') },
      { id: 'statesync', label: 'StateSync', link: '/statesync', ...worstHealth(stateSyncs, 'no StateSync resources') },
    ];

    // Keys in alert texts follow the caller's role, as in state.hotKeys (a viewer sees keyed hashes).
    const hot = hotKeyAlertInputs(stateHot.ok ? stateHot.answer : undefined, stickyHot.functions, fns, ctx.principal.role === 'viewer', ctx.statesvc?.masterKey);
    const alerts = sortAlerts([
      ...(usage.ok ? quotaAlerts(usage.namespaces) : []),
      ...teleportSpikeAlerts(rollups, now),
      ...learnerLagAlerts(clusters.map((c) => ({ namespace: c.metadata.namespace, name: c.metadata.name, members: c.status?.members ?? [] }))),
      ...stateSyncBackoffAlerts(syncs.map((s) => ({ namespace: s.metadata.namespace, name: s.metadata.name, periodSeconds: syncPeriodSeconds(s.spec.syncPeriod), replicas: s.status?.replicas ?? [] }))),
      ...hotKeyAlerts(hot.keyspaces, hot.sticky, input.hotKeyShare),
    ]);

    return {
      generatedAt: now.toISOString(),
      components,
      counts: {
        functions: functions.length,
        revisions: revs.length,
        registryClusters: registryClusters.length,
        stateSyncs: stateSyncs.length,
        routerReplicas: routerReplicas.length,
        routerReplicasUp: routerReplicas.filter((r) => r.ok).length,
      },
      functions,
      registryClusters,
      stateSyncs,
      routerReplicas,
      namespaces: usage.ok
        ? usage.namespaces.map((n) => ({ namespace: n.namespace, keys: n.keys, bytes: n.bytes, byteBudget: n.byteBudget, keyspaces: n.keyspaces.length }))
        : [],
      recentAudit: audit.map((a) => ({ ...a, at: a.at.toISOString() })),
      alerts,
    };
  });

/** statesvc's per-namespace usage (signed admin read); a failure is returned, not thrown. */
async function readUsage(ctx: Parameters<typeof statesvcAdminGet>[0], namespace: string | undefined): Promise<UsageRead> {
  if (!ctx.statesvc) return { ok: false, error: 'no statesvc configured' };
  try {
    const q = namespace ? `/v1/admin/namespaces?scope-namespace=${encodeURIComponent(namespace)}` : '/v1/admin/namespaces';
    const r = await statesvcAdminGet(ctx, q, StateNamespacesResponseSchema);
    return { ok: true, namespaces: Array.isArray(r.namespaces) ? r.namespaces : [] };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}
