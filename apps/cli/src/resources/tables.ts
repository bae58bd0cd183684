/**
 * `orrery get` tables: one row per object, columns chosen per kind (kubectl-style), read from
 * plain resource data so the rendering is a pure function. AGE comes from
 * metadata.creationTimestamp; `-o wide` adds the columns after AGE that say how the object runs.
 */
import type { Resource } from '@orrery/spec';
import { formatTraffic } from '../functions/traffic-notation.ts';
import { formatAge } from './age.ts';

type Row = Record<string, string>;
type Loose = { spec?: Record<string, unknown>; status?: Record<string, unknown> & { conditions?: Array<{ type: string; status: string; reason?: string }> } };
type Template = { environment?: string; executor?: string; containerConcurrency?: number; autoscaling?: { minScale?: number; maxScale?: number } };

export interface TableOptions {
  /** NAMESPACE first: objects from several namespaces are shown. */
  showNamespace: boolean;
  /** `-o wide`: the extra columns too. */
  wide?: boolean;
  /** For AGE. */
  now: Date;
}

function ready(r: Resource): string {
  const c = (r as Loose).status?.conditions?.find((x) => x.type === 'Ready');
  if (!c) return 'Unknown';
  return c.status === 'True' ? 'True' : c.reason ? `${c.status} (${c.reason})` : c.status;
}

function trafficOf(r: Resource): string {
  const status = (r as Loose).status?.traffic as Array<{ revisionName: string; percent: number; tag?: string }> | undefined;
  const spec = (r as Loose).spec?.traffic as Array<{ revisionName?: string; latestRevision?: boolean; percent: number; tag?: string }> | undefined;
  return formatTraffic(status && status.length > 0 ? status : (spec ?? []));
}

const str = (v: unknown, dflt = ''): string => (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? (v === '' ? dflt : String(v)) : dflt);

/** min:max workers as the autoscaler bounds them; maxScale 0 (or unset) is unbounded. */
function scaleBounds(t: Template | undefined): string {
  const min = t?.autoscaling?.minScale ?? 0;
  const max = t?.autoscaling?.maxScale;
  return `${min}:${max ? max : '∞'}`;
}

function templateColumns(t: Template | undefined): Row {
  return { ENVIRONMENT: str(t?.environment, 'nodejs'), EXECUTOR: str(t?.executor, 'deploy'), CONCURRENCY: str(t?.containerConcurrency, '0'), SCALE: scaleBounds(t) };
}

/** The default columns of a row, AGE last. */
function row(r: Resource, now: Date): Row {
  const s = (r as Loose).status ?? {};
  const spec = (r as Loose).spec ?? {};
  const base: Row = { NAMESPACE: r.metadata.namespace, NAME: r.metadata.name };
  const age = formatAge(r.metadata.creationTimestamp, now);
  switch (r.kind) {
    case 'Function':
      return { ...base, READY: ready(r), LATEST: str(s.latestReadyRevision ?? s.latestCreatedRevision, '<none>'), URL: str(s.url, '<none>'), TRAFFIC: trafficOf(r), AGE: age };
    case 'Revision':
      return { ...base, FUNCTION: str(spec.function), READY: ready(r), WORKERS: `${str(s.readyWorkers, '0')}/${str(s.desiredScale, '0')}`, GENERATION: str(r.metadata.generation, '1'), AGE: age };
    case 'Environment':
      return { ...base, READY: ready(r), IMAGE: str(spec.image), POOLSIZE: str(spec.poolSize), AGE: age };
    case 'RegistryCluster':
      return { ...base, READY: ready(r), REPLICAS: str(spec.replicas), LEADER: str(s.leader, '<none>'), AGE: age };
    case 'StateSync':
      return { ...base, READY: ready(r), KEYPREFIX: str(spec.keyPrefix), AGE: age };
  }
}

/** The `-o wide` columns, after AGE. */
function wideRow(r: Resource): Row {
  const s = (r as Loose).status ?? {};
  const spec = (r as Loose).spec ?? {};
  switch (r.kind) {
    case 'Function': {
      const state = spec.state as { keyspace?: string; sticky?: { source: string; name: string } } | undefined;
      return {
        ...templateColumns(spec.template as Template),
        'LATEST-CREATED': str(s.latestCreatedRevision, '<none>'),
        KEYSPACE: state ? (state.keyspace ?? r.metadata.name) : '<none>',
        STICKY: state?.sticky ? `${state.sticky.source}:${state.sticky.name}` : '<none>',
      };
    }
    case 'Revision':
      return { ...templateColumns(spec.template as Template), ACTUAL: str(s.actualScale, '0'), MODE: str(s.autoscalerMode, '<none>') };
    case 'Environment':
      return { 'POOL-READY': str(s.readyPoolWorkers, '0'), 'FUNCTIONS-PER-WORKER': str(spec.allowedFunctionsPerContainer, 'single') };
    case 'RegistryCluster':
      return { VERSION: str(spec.version), 'READY-REPLICAS': str(s.readyReplicas, '0'), ENDPOINT: str(s.endpoint, '<none>') };
    case 'StateSync':
      return { SYNCABLES: ((spec.syncables as string[] | undefined) ?? []).join(',') || '<none>' };
  }
}

/** Which columns a table shows, in order: NAMESPACE only across namespaces; the wide ones only with -o wide. */
export function tableColumns(first: Resource, opts: TableOptions): string[] {
  const base = Object.keys(row(first, opts.now)).filter((c) => c !== 'NAMESPACE' || opts.showNamespace);
  return opts.wide ? [...base, ...Object.keys(wideRow(first))] : base;
}

/** Aligned columns, three spaces apart; the last column is not padded. */
export function renderTable(items: readonly Resource[], opts: TableOptions): string {
  if (items.length === 0) return '';
  const columns = tableColumns(items[0]!, opts);
  const rows = items.map((r) => ({ ...row(r, opts.now), ...(opts.wide ? wideRow(r) : {}) }));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('   ').trimEnd();
  return [line(columns), ...rows.map((r) => line(columns.map((c) => r[c] ?? '')))].join('\n') + '\n';
}
