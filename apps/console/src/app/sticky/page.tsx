'use client';
import Link from 'next/link';
import { useQuery } from '@tanstack/react-query';
import { functionStickyPath } from '@orrery/spec';
import { HealthBadge } from '../../components/health-badge.tsx';
import { DataTable } from '../../components/data-table.tsx';
import { QueryState } from '../../components/query-state.tsx';
import { useTRPC } from '../../lib/trpc.ts';
import { StickyHistoryChart } from './sticky-history-chart.tsx';
import styles from './sticky.module.css';

const percent = (r: number | null) => (r === null ? '—' : `${Math.round(r * 1000) / 10} %`);

/** Sticky routing: live counters summed over router replicas, and teleports over the last hour. */
export default function StickyPage() {
  const trpc = useTRPC();
  const live = useQuery(trpc.sticky.live.queryOptions({}));
  const functions = live.data?.functions ?? [];
  const replicas = live.data?.replicas ?? [];
  const down = replicas.filter((r) => !r.ok);
  return (
    <>
      <h1>Sticky routing</h1>
      <section className="card" aria-labelledby="replicas-title">
        <h2 id="replicas-title">Router replicas</h2>
        <QueryState isLoading={live.isLoading} error={live.error} />
        {live.data ? (
          <>
            <p data-testid="sticky-replicas-summary">
              Counters are summed over {replicas.length - down.length} of {replicas.length} router replicas.
              {down.length > 0 ? <strong className="error"> {down.length} did not answer; totals are incomplete.</strong> : null}
            </p>
            <ul className={styles.replicas}>
              {replicas.map((r) => (
                <li key={r.url} data-testid={`sticky-replica-${r.url}`}>
                  <HealthBadge health={r.health} /> <code>{r.url}</code>
                  {r.error ? <span className="error"> — {r.error}</span> : null}
                </li>
              ))}
            </ul>
          </>
        ) : null}
      </section>
      <section className="card" aria-labelledby="live-title">
        <h2 id="live-title">Live counters per function</h2>
        <DataTable
          columns={['Function', 'Requests', 'Sticky requests', 'Missing keys', 'Hits', 'Hit ratio', 'Teleports', 'Replicas']}
          rows={functions}
          empty={live.data ? <p className="muted">No function has been routed yet.</p> : null}
          row={(f) => {
            const id = `${f.namespace}-${f.function}`;
            return (
              <tr key={id} data-testid={`sticky-row-${f.function}`} data-namespace={f.namespace}>
                <th scope="row">
                  <Link href={functionStickyPath(f.namespace, f.function)} title={`the sticky panel of ${f.namespace}/${f.function}`}>
                    {f.namespace}/{f.function}
                  </Link>
                </th>
                <td className={styles.num} data-testid={`sticky-requests-${id}`}>{f.requests}</td>
                <td className={styles.num} data-testid={`sticky-sticky-requests-${id}`}>{f.stickyRequests}</td>
                <td className={styles.num} data-testid={`sticky-missing-${id}`}>{f.stickyKeyMissing}</td>
                <td className={styles.num}>{f.stickyHits}</td>
                <td className={styles.num} data-testid={`sticky-hit-ratio-${id}`}>{percent(f.hitRatio)}</td>
                <td className={styles.num} data-testid={`sticky-teleports-${id}`}>{f.teleports}</td>
                <td className={styles.num}>{f.replicas}</td>
              </tr>
            );
          }}
        />
      </section>
      {functions.length > 0 ? (
        <section aria-labelledby="history-title">
          <h2 id="history-title">Teleports over time (last hour, per-minute rollups)</h2>
          <div className={styles.charts}>
            {functions.map((f) => (
              <StickyHistoryChart key={`${f.namespace}/${f.function}`} namespace={f.namespace} fn={f.function} />
            ))}
          </div>
        </section>
      ) : null}
    </>
  );
}
