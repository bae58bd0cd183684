'use client';
import Link from 'next/link';
import { useParams } from 'next/navigation';
import { useQuery } from '@tanstack/react-query';
import { QueryState } from '../../../../components/query-state.tsx';
import { useTRPC } from '../../../../lib/trpc.ts';
import { StateSyncCard } from '../../statesync-card.tsx';

/** One StateSync resource (the deep link the list, the overview's alerts and the audit log point to). */
export default function StateSyncDetailPage() {
  const params = useParams<{ namespace: string; name: string }>();
  const namespace = decodeURIComponent(params.namespace);
  const name = decodeURIComponent(params.name);
  const trpc = useTRPC();
  const list = useQuery(trpc.statesync.list.queryOptions({ namespace }));
  const s = list.data?.items.find((i) => i.name === name);
  return (
    <>
      <p>
        <Link href="/statesync">← StateSync</Link>
      </p>
      <h1>
        StateSync {namespace}/{name}
      </h1>
      <QueryState isLoading={list.isLoading} error={list.error} />
      {list.data && !s ? <p className="muted">There is no StateSync {name} in namespace {namespace}.</p> : null}
      {s ? <StateSyncCard s={s} now={list.dataUpdatedAt || Date.now()} /> : null}
    </>
  );
}
