/**
 * Argo-CD-style health (Healthy / Progressing / Degraded / Unknown) from the Kubernetes-shaped
 * status conditions the operator writes: the one health rule. Pure: overview.summary,
 * functions.live, registry.clusters, registry.members and statesync.list call these, and the
 * console only shows the verdicts (a test in apps/console fails if it computes its own).
 * As in kstatus, a spec the operator has not observed yet is never Healthy, and a failed step is
 * Degraded, not Progressing.
 */
import type { Condition, OrreryFunction, RegistryCluster, StateSync } from '@orrery/spec';

export const HEALTHS = ['Healthy', 'Progressing', 'Degraded', 'Unknown'] as const;
export type Health = (typeof HEALTHS)[number];

export interface HealthVerdict {
  health: Health;
  /** One line saying why, from the deciding condition (empty when there is nothing to add). */
  message: string;
}

/** How bad each health is when several roll up into one: what needs action first wins. */
const SEVERITY: Record<Health, number> = { Healthy: 0, Progressing: 1, Unknown: 2, Degraded: 3 };

type Status = { conditions?: Condition[]; observedGeneration?: number } | undefined;

const find = (conditions: readonly Condition[] | undefined, type: string) => conditions?.find((c) => c.type === type);
const why = (c: Condition | undefined, fallback = '') => (c ? [c.reason, c.message].filter(Boolean).join(': ') : fallback);

/** A spec change the operator has not looked at yet: whatever the conditions say is about the old spec. */
function staleGeneration(generation: number | undefined, status: Status): HealthVerdict | undefined {
  if (generation === undefined || status?.observedGeneration === undefined || status.observedGeneration >= generation) return undefined;
  return { health: 'Progressing', message: `generation ${generation} not yet observed by the operator (observed ${status.observedGeneration})` };
}

/**
 * Function: Ready=True → Healthy; Ready=False (a revision failed) → Degraded; Ready=Unknown
 * (revision starting, traffic pending) → Progressing; no Ready condition yet → Unknown. The
 * message comes from ConfigurationsReady / RoutesReady, since Ready only points at them.
 */
export function functionHealth(fn: Pick<OrreryFunction, 'metadata' | 'status'>): HealthVerdict {
  const status = fn.status;
  const stale = staleGeneration(fn.metadata.generation, status);
  if (stale) return stale;
  const ready = find(status?.conditions, 'Ready');
  if (!ready) return { health: 'Unknown', message: 'no Ready condition yet (the operator has not reconciled it)' };
  const detail = ['ConfigurationsReady', 'RoutesReady'].map((t) => find(status?.conditions, t)).find((c) => c && c.status !== 'True');
  if (ready.status === 'True') return { health: 'Healthy', message: status?.latestReadyRevision ? `serving ${status.latestReadyRevision}` : '' };
  if (ready.status === 'False') return { health: 'Degraded', message: why(detail ?? ready) };
  return { health: 'Progressing', message: why(detail ?? ready) };
}

/**
 * RegistryCluster: Available=False (no quorum) or Degraded=True (a member unhealthy) → Degraded;
 * a failed membership step → Degraded; a membership change under way → Progressing;
 * Available=True → Healthy; no conditions → Unknown.
 */
export function registryClusterHealth(c: Pick<RegistryCluster, 'metadata' | 'status'>): HealthVerdict {
  const conditions = c.status?.conditions;
  if (!conditions?.length) return { health: 'Unknown', message: 'no conditions yet (the operator has not reconciled it)' };
  const available = find(conditions, 'Available');
  const degraded = find(conditions, 'Degraded');
  const progressing = find(conditions, 'Progressing');
  if (available?.status === 'False') return { health: 'Degraded', message: why(available) };
  if (degraded?.status === 'True') return { health: 'Degraded', message: why(degraded) };
  if (progressing?.status === 'True' && progressing.reason === 'StepFailed') return { health: 'Degraded', message: why(progressing) };
  const stale = staleGeneration(c.metadata.generation, c.status);
  if (stale) return stale;
  if (progressing?.status === 'True') return { health: 'Progressing', message: why(progressing) };
  if (available?.status === 'True') return { health: 'Healthy', message: available.message ?? '' };
  return { health: 'Unknown', message: why(available, 'no Available condition yet') };
}

/**
 * StateSync: Degraded=True (sync errors, bad settings) → Degraded; settings rolling out or tables
 * still syncing → Progressing; Ready=True → Healthy; no target replicas or no conditions → Unknown.
 */
export function stateSyncHealth(s: Pick<StateSync, 'metadata' | 'status'>): HealthVerdict {
  const conditions = s.status?.conditions;
  if (!conditions?.length) return { health: 'Unknown', message: 'no conditions yet (the operator has not reconciled it)' };
  const degraded = find(conditions, 'Degraded');
  const ready = find(conditions, 'Ready');
  const progressing = find(conditions, 'Progressing');
  if (degraded?.status === 'True') return { health: 'Degraded', message: why(degraded) };
  const stale = staleGeneration(s.metadata.generation, s.status);
  if (stale) return stale;
  if (progressing?.status === 'True') return { health: 'Progressing', message: why(progressing) };
  if (ready?.status === 'True') return { health: 'Healthy', message: ready.message ?? '' };
  if (ready?.status === 'False' && ready.reason === 'Syncing') return { health: 'Progressing', message: why(ready) };
  if (ready?.status === 'False' && ready.reason !== 'NoReplicas') return { health: 'Degraded', message: why(ready) };
  return { health: 'Unknown', message: why(ready, 'no Ready condition yet') };
}

/** Router replicas: none known → Unknown; every one answered → Healthy; any silent → Degraded. */
export function replicasHealth(replicas: ReadonlyArray<{ url: string; ok: boolean; error?: string | null }>): HealthVerdict {
  if (replicas.length === 0) return { health: 'Unknown', message: 'no router replicas known to the API' };
  const down = replicas.filter((r) => !r.ok);
  if (down.length === 0) return { health: 'Healthy', message: `${replicas.length} of ${replicas.length} replicas answered` };
  return { health: 'Degraded', message: `${replicas.length - down.length} of ${replicas.length} replicas answered; ${down.map((r) => `${r.url}: ${r.error ?? 'no answer'}`).join('; ')}` };
}

/**
 * One registry member as the operator's last status call saw it: answered → Healthy, did not →
 * Degraded (a member down is a voter or learner less), not observed yet → Unknown.
 */
export function registryMemberHealth(m: { health: 'healthy' | 'unhealthy' | 'unknown' }): HealthVerdict {
  if (m.health === 'healthy') return { health: 'Healthy', message: 'answered its status call' };
  if (m.health === 'unhealthy') return { health: 'Degraded', message: 'did not answer its status call' };
  return { health: 'Unknown', message: 'not observed yet' };
}

/** The worst of several verdicts (Degraded > Unknown > Progressing > Healthy); none → Healthy (nothing is wrong). */
export function worstHealth(verdicts: readonly HealthVerdict[], none = 'none defined'): HealthVerdict {
  if (verdicts.length === 0) return { health: 'Healthy', message: none };
  let worst = verdicts[0]!;
  for (const v of verdicts) if (SEVERITY[v.health] > SEVERITY[worst.health]) worst = v;
  const counts = HEALTHS.map((h) => [h, verdicts.filter((v) => v.health === h).length] as const).filter(([, n]) => n > 0);
  return { health: worst.health, message: counts.map(([h, n]) => `${n} ${h}`).join(', ') };
}
