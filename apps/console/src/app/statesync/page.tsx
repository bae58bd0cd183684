'use client';
import { useQuery } from '@tanstack/react-query';
import { QueryState } from '../../components/query-state.tsx';
import { useTRPC } from '../../lib/trpc.ts';
import { StateSyncCard } from './statesync-card.tsx';

/** StateSync: every resource with its per-replica health; each links to its own page. */
export default function StateSyncPage() {
  const trpc = useTRPC();
  const list = useQuery(trpc.statesync.list.queryOptions({}));
  const now = list.dataUpdatedAt || Date.now();
  const items = list.data?.items ?? [];
  return (
    <>
      <h1>StateSync</h1>
      <QueryState isLoading={list.isLoading} error={list.error} />
      {list.data && items.length === 0 ? <p className="muted">No StateSync resources.</p> : null}
      {items.map((s) => (
        <StateSyncCard key={`${s.namespace}/${s.name}`} s={s} now={now} linkTitle />
      ))}
    </>
  );
}
