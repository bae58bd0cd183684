/**
 * Pure rendering for `orrery status`: component health (with CPU time and memory per process
 * when /proc tells), then the resources: Functions, Revisions, Environments, RegistryClusters
 * (leader, members, voters and learners) and StateSyncs, each with its readiness.
 */
import type { Condition, Environment, OrreryFunction, RegistryCluster, Revision, StateSync } from '@orrery/spec';

export interface ComponentHealth {
  name: string;
  state: 'Ready' | 'Degraded' | 'Unhealthy';
  detail: string;
  pid?: number;
  cpuSeconds?: number;
  rssBytes?: number;
}

/** `True`, `False (Reason)` or `Unknown` from a resource's Ready (or other) condition. */
export function readiness(conditions: readonly Condition[] | undefined, type = 'Ready'): string {
  const ready = conditions?.find((c) => c.type === type);
  return ready ? `${ready.status}${ready.status !== 'True' && ready.reason ? ` (${ready.reason})` : ''}` : 'Unknown';
}

export interface FunctionRow {
  namespace: string;
  name: string;
  ready: string;
  latestRevision: string;
  traffic: string;
}

export function functionRows(items: readonly unknown[]): FunctionRow[] {
  return (items as OrreryFunction[]).map((fn) => {
    return {
      namespace: fn.metadata.namespace ?? 'default',
      name: fn.metadata.name,
      ready: readiness(fn.status?.conditions),
      latestRevision: fn.status?.latestReadyRevision ?? fn.status?.latestCreatedRevision ?? '-',
      traffic: (fn.status?.traffic ?? []).map((t) => `${t.revisionName ?? 'latest'}=${t.percent ?? 0}%${t.tag ? `(${t.tag})` : ''}`).join(' ') || '-',
    };
  });
}

export interface RevisionRow {
  namespace: string;
  name: string;
  function: string;
  ready: string;
  /** Workers running / wanted by the autoscaler. */
  scale: string;
  readyWorkers: number;
}

export function revisionRows(items: readonly unknown[]): RevisionRow[] {
  return (items as Revision[]).map((r) => ({
    namespace: r.metadata.namespace ?? 'default',
    name: r.metadata.name,
    function: r.spec.function,
    ready: readiness(r.status?.conditions),
    scale: `${r.status?.actualScale ?? 0}/${r.status?.desiredScale ?? 0}`,
    readyWorkers: r.status?.readyWorkers ?? 0,
  }));
}

export interface EnvironmentRow {
  namespace: string;
  name: string;
  ready: string;
  /** Warm pool workers ready / wanted. */
  pool: string;
}

export function environmentRows(items: readonly unknown[]): EnvironmentRow[] {
  return (items as Environment[]).map((e) => ({
    namespace: e.metadata.namespace ?? 'default',
    name: e.metadata.name,
    ready: readiness(e.status?.conditions),
    pool: `${e.status?.readyPoolWorkers ?? 0}/${e.spec.poolSize ?? 0}`,
  }));
}

export interface RegistryClusterRow {
  namespace: string;
  name: string;
  /** Its Available condition (quorum and a leader): RegistryClusters have no Ready condition. */
  available: string;
  leader: string;
  endpoint: string;
  voters: number;
  learners: number;
  members: { name: string; id: string; role: string; health: string; leader: boolean; clientURL?: string }[];
}

export function registryClusterRows(items: readonly unknown[]): RegistryClusterRow[] {
  return (items as RegistryCluster[]).map((rc) => {
    const members = (rc.status?.members ?? []).map((m) => ({ name: m.name, id: m.id, role: m.role, health: m.health, leader: m.isLeader, clientURL: m.clientURL }));
    return {
      namespace: rc.metadata.namespace ?? 'default',
      name: rc.metadata.name,
      available: readiness(rc.status?.conditions, 'Available'),
      leader: members.find((m) => m.leader)?.name ?? rc.status?.leader ?? '-',
      endpoint: rc.status?.endpoint ?? '-',
      voters: members.filter((m) => m.role === 'voter').length,
      learners: members.filter((m) => m.role === 'learner').length,
      members,
    };
  });
}

export interface StateSyncRow {
  namespace: string;
  name: string;
  ready: string;
  target: string;
  syncables: string;
  replicas: { replica: string; syncable?: string; lastSuccessfulCycle?: string; lastError?: string }[];
}

export function stateSyncRows(items: readonly unknown[]): StateSyncRow[] {
  return (items as StateSync[]).map((ss) => ({
    namespace: ss.metadata.namespace ?? 'default',
    name: ss.metadata.name,
    ready: readiness(ss.status?.conditions),
    target: ss.spec.target?.component ?? 'router',
    syncables: (ss.spec.syncables ?? []).join(',') || '-',
    replicas: (ss.status?.replicas ?? []).map((r) => ({ replica: r.replica, syncable: r.syncable, lastSuccessfulCycle: r.lastSuccessfulCycle, lastError: r.lastError })),
  }));
}

/** Everything `orrery status` lists from the store. */
export interface ResourceReport {
  functions: FunctionRow[];
  revisions: RevisionRow[];
  environments: EnvironmentRow[];
  registryClusters: RegistryClusterRow[];
  stateSyncs: StateSyncRow[];
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  return [header, ...rows].map((r) => r.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

function componentTable(components: readonly ComponentHealth[]): string {
  const usage = components.some((c) => c.pid !== undefined);
  if (!usage) return table(['COMPONENT', 'STATE', 'DETAIL'], components.map((c) => [c.name, c.state, c.detail]));
  return table(
    ['COMPONENT', 'STATE', 'PID', 'CPU', 'RSS', 'DETAIL'],
    components.map((c) => [c.name, c.state, c.pid === undefined ? '-' : String(c.pid), c.cpuSeconds === undefined ? '-' : `${c.cpuSeconds.toFixed(1)} s`, c.rssBytes === undefined ? '-' : mb(c.rssBytes), c.detail]),
  );
}

function replicaSummary(r: StateSyncRow['replicas'][number]): string {
  const what = `${r.replica}${r.syncable ? `/${r.syncable}` : ''}`;
  if (r.lastError) return `${what}: error ${r.lastError}`;
  return `${what}: ${r.lastSuccessfulCycle ? `synced ${r.lastSuccessfulCycle}` : 'not synced yet'}`;
}

export const emptyReport = (): ResourceReport => ({ functions: [], revisions: [], environments: [], registryClusters: [], stateSyncs: [] });

export function renderStatus(components: readonly ComponentHealth[], r: ResourceReport, storeError?: string): string {
  const out = [componentTable(components), ''];
  if (storeError) {
    out.push(`functions: cannot list them from the store: ${storeError}`);
    return out.join('\n');
  }
  if (r.functions.length === 0) out.push('functions: none (apply some with `orrery apply -f examples/`)');
  else out.push(table(['NAMESPACE', 'FUNCTION', 'READY', 'LATEST REVISION', 'TRAFFIC'], r.functions.map((f) => [f.namespace, f.name, f.ready, f.latestRevision, f.traffic])));
  if (r.revisions.length) {
    out.push('', table(['NAMESPACE', 'REVISION', 'FUNCTION', 'READY', 'SCALE', 'READY WORKERS'], r.revisions.map((v) => [v.namespace, v.name, v.function, v.ready, v.scale, String(v.readyWorkers)])));
  }
  if (r.environments.length) {
    out.push('', table(['NAMESPACE', 'ENVIRONMENT', 'READY', 'POOL'], r.environments.map((e) => [e.namespace, e.name, e.ready, e.pool])));
  }
  if (r.registryClusters.length) {
    out.push('', table(['NAMESPACE', 'REGISTRY CLUSTER', 'AVAILABLE', 'LEADER', 'VOTERS', 'LEARNERS', 'ENDPOINT'], r.registryClusters.map((c) => [c.namespace, c.name, c.available, c.leader, String(c.voters), String(c.learners), c.endpoint])));
    for (const c of r.registryClusters) {
      if (c.members.length === 0) continue;
      out.push(`  ${c.name} members: ${c.members.map((m) => `${m.name} (${[m.role, m.health, ...(m.leader ? ['leader'] : [])].join(', ')})`).join('; ')}`);
    }
  }
  if (r.stateSyncs.length) {
    out.push('', table(['NAMESPACE', 'STATESYNC', 'READY', 'TARGET', 'SYNCABLES'], r.stateSyncs.map((s) => [s.namespace, s.name, s.ready, s.target, s.syncables])));
    for (const s of r.stateSyncs) if (s.replicas.length) out.push(`  ${s.name} replicas: ${s.replicas.map(replicaSummary).join('; ')}`);
  }
  return out.join('\n');
}
