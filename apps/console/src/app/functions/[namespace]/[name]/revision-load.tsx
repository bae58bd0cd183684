'use client';
import { useQuery } from '@tanstack/react-query';
import { DataTable } from '../../../../components/data-table.tsx';
import { useTRPC } from '../../../../lib/trpc.ts';
import { QueryState } from '../../../../components/query-state.tsx';
import styles from './function-detail.module.css';

/**
 * Live RPS and concurrency per revision (functions.live: every router replica's last one-second
 * window, summed — what the autoscaler sees), with a bar per revision so a canary's share of the
 * load is visible at a glance.
 */
export function RevisionLoad({ namespace, name }: { namespace: string; name: string }) {
  const trpc = useTRPC();
  const live = useQuery(trpc.functions.live.queryOptions({ namespace, name }));
  const rows = live.data?.revisions ?? [];
  const total = rows.reduce((s, r) => s + r.rps, 0);
  const up = live.data?.replicas.filter((r) => r.ok).length ?? 0;
  return (
    <section className={`card ${styles.panel}`} aria-labelledby="load-heading">
      <h2 id="load-heading">Load per revision (last second)</h2>
      <QueryState isLoading={live.isLoading} error={live.error} />
      {live.data ? (
        <p className="muted" data-testid="revision-load-replicas">
          {up} of {live.data.replicas.length} router replicas answered.
        </p>
      ) : null}
      <DataTable
        caption="Requests per second and concurrency per revision"
        columns={['Revision', 'Requests/s', 'Share', 'Concurrency', 'In flight', 'Queued']}
        rows={rows}
        empty={live.data ? <p className="muted">No revision of this function has been routed since the routers started.</p> : null}
        row={(r) => {
          const share = total > 0 ? r.rps / total : 0;
          return (
            <tr key={r.revision} data-testid={`revision-load-${r.revision}`}>
              <td>{r.revision}</td>
              <td data-testid={`revision-rps-${r.revision}`}>{r.rps}</td>
              <td>
                <div className="bar" role="img" aria-label={`${Math.round(share * 100)} % of requests`}>
                  <span style={{ width: `${Math.round(share * 100)}%` }} />
                </div>
              </td>
              <td data-testid={`revision-concurrency-${r.revision}`}>{r.concurrency}</td>
              <td>{r.inflight}</td>
              <td>{r.queued}</td>
            </tr>
          );
        }}
      />
    </section>
  );
}
