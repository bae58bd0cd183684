'use client';
import Link from 'next/link';
import { useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { functionPath, revisionPath } from '@orrery/spec';
import { DataTable } from '../../components/data-table.tsx';
import { HealthBadge } from '../../components/health-badge.tsx';
import { NoFunctions } from '../../components/no-functions.tsx';
import { QueryState } from '../../components/query-state.tsx';
import { useTRPC } from '../../lib/trpc.ts';
import { trafficSummary } from './traffic-summary.ts';

/** Every function with its health (derived server-side by overview.summary), latest revision and traffic. */
export default function FunctionsPage() {
  const trpc = useTRPC();
  const [namespace, setNamespace] = useState('');
  const list = useQuery(trpc.functions.list.queryOptions({}));
  const summary = useQuery(trpc.overview.summary.queryOptions({ auditLimit: 0 }));
  const health = useMemo(() => new Map((summary.data?.functions ?? []).map((f) => [`${f.namespace}/${f.name}`, f])), [summary.data]);
  const items = list.data?.items ?? [];
  const namespaces = [...new Set(items.map((f) => f.metadata.namespace))].sort();
  const shown = items.filter((f) => !namespace || f.metadata.namespace === namespace);
  return (
    <>
      <h1>Functions</h1>
      <p>
        <label style={{ display: 'inline-flex' }}>
          Namespace
          <select value={namespace} onChange={(e) => setNamespace(e.target.value)}>
            <option value="">all namespaces</option>
            {namespaces.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
      </p>
      <QueryState isLoading={list.isLoading} error={list.error} />
      <DataTable
        caption="Functions: namespace, name, health, latest revision and traffic split"
        columns={['Namespace', 'Name', 'Ready / health', 'Latest revision', 'Traffic']}
        rows={shown}
        empty={list.data ? <NoFunctions /> : null}
        row={(f) => {
          const key = `${f.metadata.namespace}/${f.metadata.name}`;
          const h = health.get(key);
          const ready = f.status?.conditions?.find((c) => c.type === 'Ready');
          const href = functionPath(f.metadata.namespace, f.metadata.name);
          return (
            <tr key={key} data-testid={`function-row-${f.metadata.name}`} data-namespace={f.metadata.namespace}>
              <td>{f.metadata.namespace}</td>
              <td>
                <Link href={href}>{f.metadata.name}</Link>
              </td>
              <td>
                {h ? <HealthBadge health={h.health} title={h.message} /> : <span className="muted">…</span>}{' '}
                <span className="muted" data-testid="function-ready">
                  Ready={ready?.status ?? 'not reported'}
                  {ready?.reason ? ` (${ready.reason})` : ''}
                </span>
              </td>
              <td>
                {f.status?.latestReadyRevision ? (
                  <Link href={revisionPath(f.metadata.namespace, f.metadata.name, f.status.latestReadyRevision)}>{f.status.latestReadyRevision}</Link>
                ) : (
                  <span className="muted">none ready</span>
                )}
                {f.status?.latestCreatedRevision && f.status.latestCreatedRevision !== f.status.latestReadyRevision ? (
                  <span className="muted">
                    {' '}
                    (newest: <Link href={revisionPath(f.metadata.namespace, f.metadata.name, f.status.latestCreatedRevision)}>{f.status.latestCreatedRevision}</Link>)
                  </span>
                ) : null}
              </td>
              <td data-testid="function-traffic">{trafficSummary(f.spec.traffic, f.status?.traffic)}</td>
            </tr>
          );
        }}
      />
    </>
  );
}
