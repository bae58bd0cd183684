'use client';
import Link from 'next/link';
import { useQuery } from '@tanstack/react-query';
import { registryClusterPath } from '@orrery/spec';
import { HealthBadge } from '../../components/health-badge.tsx';
import { DataTable } from '../../components/data-table.tsx';
import { QueryState } from '../../components/query-state.tsx';
import { useTRPC } from '../../lib/trpc.ts';

/** Registry clusters: one row per RegistryCluster, each linking to its membership view. */
export default function RegistryClustersPage() {
  const trpc = useTRPC();
  const clusters = useQuery(trpc.registry.clusters.queryOptions({}));
  const items = clusters.data?.items ?? [];
  return (
    <>
      <h1>Registry clusters</h1>
      <QueryState isLoading={clusters.isLoading} error={clusters.error} />
      <DataTable
        columns={['Cluster', 'Health', 'Leader', 'Voters (desired)', 'Learners', 'Healthy members', 'Registry API']}
        rows={items}
        empty={clusters.data ? <p className="muted">No RegistryCluster resources.</p> : null}
        row={(c) => (
          <tr key={`${c.namespace}/${c.name}`} data-testid={`cluster-${c.namespace}-${c.name}`}>
            <th scope="row">
              <Link href={registryClusterPath(c.namespace, c.name)}>
                {c.namespace}/{c.name}
              </Link>
            </th>
            <td>
              <HealthBadge health={c.health} title={c.message} /> <span className="muted">{c.message}</span>
            </td>
            <td>{c.leader ?? <span className="warning">none</span>}</td>
            <td>
              {c.voters} ({c.replicas})
            </td>
            <td>{c.learners}</td>
            <td>
              {c.healthy} of {c.voters + c.learners}
            </td>
            <td>{c.endpoint ? <code>{c.endpoint}</code> : <span className="muted">not yet</span>}</td>
          </tr>
        )}
      />
    </>
  );
}
