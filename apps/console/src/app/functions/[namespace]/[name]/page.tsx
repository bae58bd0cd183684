'use client';
import Link from 'next/link';
import { useParams } from 'next/navigation';
import { useQuery } from '@tanstack/react-query';
import { DataTable } from '../../../../components/data-table.tsx';
import { HealthBadge } from '../../../../components/health-badge.tsx';
import { QueryState } from '../../../../components/query-state.tsx';
import { useTRPC } from '../../../../lib/trpc.ts';
import { useScrollToHash } from '../../../../lib/use-scroll-to-hash.ts';
import { RevisionLoad } from './revision-load.tsx';
import { RevisionsTimeline } from './revisions-timeline.tsx';
import { BuildPanel } from './build-panel.tsx';
import { DomainsPanel } from './domains-panel.tsx';
import { StickyPanel } from './sticky-panel.tsx';
import { TrafficEditor } from './traffic-editor.tsx';
import { TriggersPanel } from './triggers-panel.tsx';
import styles from './function-detail.module.css';

/**
 * One function: health and conditions, the traffic split editor, the revisions timeline with
 * rollback, the build of its package, live counters, its triggers and its domains.
 */
export default function FunctionDetailPage() {
  const params = useParams<{ namespace: string; name: string }>();
  const namespace = decodeURIComponent(params.namespace);
  const name = decodeURIComponent(params.name);
  const trpc = useTRPC();
  const fn = useQuery(trpc.functions.get.queryOptions({ namespace, name }));
  const revisions = useQuery(trpc.functions.revisions.queryOptions({ namespace, name }));
  // One live call per refresh carries health, per-revision load and sticky counters (RevisionLoad shares it).
  const live = useQuery(trpc.functions.live.queryOptions({ namespace, name }));
  const health = live.data?.health;
  const f = fn.data;
  const revisionNames = (revisions.data?.items ?? []).map((r) => r.metadata.name);
  // Deep links: #build, #sticky, #triggers, #domains (the panels) and #rev-<revision> (its timeline entry).
  useScrollToHash(Boolean(f && revisions.data));
  return (
    <>
      <p>
        <Link href="/functions">← Functions</Link>
      </p>
      <div className={styles.header}>
        <h1>
          {namespace}/{name}
        </h1>
        {health ? <HealthBadge health={health.health} title={health.message} /> : null}
        {health?.message ? (
          <span className="muted" data-testid="function-health-message">
            {health.message}
          </span>
        ) : null}
      </div>
      <QueryState isLoading={fn.isLoading} error={fn.error} />
      {f ? (
        <>
          <p className={styles.facts}>
            <span>
              URL: {f.status?.url ? <code data-testid="function-url">{f.status.url}</code> : <span className="muted">not routed yet</span>}
            </span>
            <span>generation {f.metadata.generation ?? '—'} (observed {f.status?.observedGeneration ?? '—'})</span>
            <span>executor {f.spec.template.executor ?? 'pool'}</span>
            {f.spec.state ? (
              <span>
                state: keyspace <code>{f.spec.state.keyspace ?? name}</code>
                {f.spec.state.sticky ? ` · sticky by ${f.spec.state.sticky.source} ${f.spec.state.sticky.name}` : ''}
              </span>
            ) : (
              <span className="muted">stateless</span>
            )}
          </p>
          <details>
            <summary>Conditions</summary>
            <DataTable
              caption="Status conditions"
              columns={['Type', 'Status', 'Reason', 'Message', 'Since']}
              rows={f.status?.conditions ?? []}
              row={(c) => (
                <tr key={c.type} data-testid={`condition-${c.type}`}>
                  <td>{c.type}</td>
                  <td>{c.status}</td>
                  <td>{c.reason}</td>
                  <td>{c.message}</td>
                  <td>{c.lastTransitionTime ? new Date(c.lastTransitionTime).toLocaleString() : ''}</td>
                </tr>
              )}
            />
          </details>
          <BuildPanel fn={f} now={fn.dataUpdatedAt} />
          <QueryState isLoading={revisions.isLoading} error={revisions.error} />
          {revisions.data ? (
            <>
              <TrafficEditor fn={f} revisions={revisionNames} notRunnable={revisions.data.notRunnable} />
              <RevisionsTimeline fn={f} revisions={revisions.data.items} notRunnable={revisions.data.notRunnable} />
            </>
          ) : null}
          <RevisionLoad namespace={namespace} name={name} />
          <StickyPanel live={live.data} sampledAt={live.dataUpdatedAt} />
          <QueryState isLoading={false} error={live.error} />
          <TriggersPanel fn={f} />
          <DomainsPanel fn={f} now={fn.dataUpdatedAt} />
        </>
      ) : null}
    </>
  );
}
