'use client';
import { useQuery } from '@tanstack/react-query';
import { QueryState } from '../../components/query-state.tsx';
import { useTRPC } from '../../lib/trpc.ts';
import { KeyspaceUsage } from './keyspace-usage.tsx';
import { NamespaceQuotas } from './namespace-quotas.tsx';

/** State: keyspace usage per function and quota per namespace, live from statesvc's admin reads. */
export default function StatePage() {
  const trpc = useTRPC();
  const namespaces = useQuery(trpc.state.namespaces.queryOptions({}));
  const items = namespaces.data?.items ?? [];
  return (
    <>
      <h1>State</h1>
      <section aria-labelledby="quota-title" className="card">
        <h2 id="quota-title">Quota per namespace</h2>
        <QueryState isLoading={namespaces.isLoading} error={namespaces.error} />
        {namespaces.data && items.length === 0 ? <p className="muted">statesvc holds no namespaces yet.</p> : null}
        {items.length > 0 ? <NamespaceQuotas items={items} /> : null}
      </section>
      {namespaces.data ? <KeyspaceUsage namespaces={items.map((n) => n.namespace)} linkNamespaces /> : null}
    </>
  );
}
