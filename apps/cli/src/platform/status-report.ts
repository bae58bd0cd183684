/** Pure rendering for `orrery status`: component health and the Function table. */
import type { OrreryFunction } from '@orrery/spec';

export interface ComponentHealth {
  name: string;
  state: 'Ready' | 'Degraded' | 'Unhealthy';
  detail: string;
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
    const ready = fn.status?.conditions?.find((c) => c.type === 'Ready');
    return {
      namespace: fn.metadata.namespace ?? 'default',
      name: fn.metadata.name,
      ready: ready ? `${ready.status}${ready.status !== 'True' && ready.reason ? ` (${ready.reason})` : ''}` : 'Unknown',
      latestRevision: fn.status?.latestReadyRevision ?? fn.status?.latestCreatedRevision ?? '-',
      traffic: (fn.status?.traffic ?? []).map((t) => `${t.revisionName ?? 'latest'}=${t.percent ?? 0}%${t.tag ? `(${t.tag})` : ''}`).join(' ') || '-',
    };
  });
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  return [header, ...rows].map((r) => r.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
}

export function renderStatus(components: readonly ComponentHealth[], functions: readonly FunctionRow[], storeError?: string): string {
  const out = [table(['COMPONENT', 'STATE', 'DETAIL'], components.map((c) => [c.name, c.state, c.detail])), ''];
  if (storeError) out.push(`functions: cannot list them from the store: ${storeError}`);
  else if (functions.length === 0) out.push('functions: none (apply some with `orrery apply -f examples/`)');
  else out.push(table(['NAMESPACE', 'FUNCTION', 'READY', 'LATEST REVISION', 'TRAFFIC'], functions.map((f) => [f.namespace, f.name, f.ready, f.latestRevision, f.traffic])));
  return out.join('\n');
}
