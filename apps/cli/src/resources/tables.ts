/**
 * `orrery get` tables: one row per object, columns chosen per kind (kubectl-style), read from
 * plain resource data so the rendering is a pure function.
 */
import type { Resource } from '@orrery/spec';
import { formatTraffic } from '../functions/traffic-notation.ts';

type Row = Record<string, string>;
type Loose = { spec?: Record<string, unknown>; status?: Record<string, unknown> & { conditions?: Array<{ type: string; status: string; reason?: string }> } };

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

function row(r: Resource): Row {
  const s = (r as Loose).status ?? {};
  const spec = (r as Loose).spec ?? {};
  const base: Row = { NAMESPACE: r.metadata.namespace, NAME: r.metadata.name };
  switch (r.kind) {
    case 'Function':
      return { ...base, READY: ready(r), LATEST: str(s.latestReadyRevision ?? s.latestCreatedRevision, '<none>'), URL: str(s.url, '<none>'), TRAFFIC: trafficOf(r) };
    case 'Revision':
      return { ...base, FUNCTION: str(spec.function), READY: ready(r), WORKERS: `${str(s.readyWorkers, '0')}/${str(s.desiredScale, '0')}`, GENERATION: str(r.metadata.generation, '1') };
    case 'Environment':
      return { ...base, READY: ready(r), IMAGE: str(spec.image), POOLSIZE: str(spec.poolSize) };
    case 'RegistryCluster':
      return { ...base, READY: ready(r), REPLICAS: str(spec.replicas), LEADER: str(s.leader, '<none>') };
    case 'StateSync':
      return { ...base, READY: ready(r), KEYPREFIX: str(spec.keyPrefix) };
  }
}

/** Aligned columns; NAMESPACE only when objects from several namespaces are shown. */
export function renderTable(items: readonly Resource[], opts: { showNamespace: boolean }): string {
  if (items.length === 0) return '';
  const rows = items.map(row);
  const columns = Object.keys(rows[0]!).filter((c) => c !== 'NAMESPACE' || opts.showNamespace);
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('   ').trimEnd();
  return [line(columns), ...rows.map((r) => line(columns.map((c) => r[c] ?? '')))].join('\n') + '\n';
}
