'use client';
import Link from 'next/link';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@orrery/api';
import { stateSyncPath } from '@orrery/spec';
import { HealthBadge } from '../../components/health-badge.tsx';

export type StateSyncItem = inferRouterOutputs<AppRouter>['statesync']['list']['items'][number];

function ago(iso: string | undefined, now: number): string {
  if (!iso) return 'never';
  const s = Math.max(0, Math.round((now - new Date(iso).getTime()) / 1000));
  return s < 120 ? `${s} s ago` : `${Math.round(s / 60)} min ago`;
}

/** Rows of one replica together (a replica reports once per syncable), in first-seen order. */
function groupByReplica<R extends { replica: string }>(rows: R[]): Array<[string, R[]]> {
  const groups = new Map<string, R[]>();
  for (const r of rows) groups.set(r.replica, [...(groups.get(r.replica) ?? []), r]);
  return [...groups];
}

/**
 * One StateSync resource: per router replica (and syncable) the last cycle, entities, errors and
 * backoff. The list page links each title to the resource's own page (`linkTitle`).
 */
export function StateSyncCard({ s, now, linkTitle = false }: { s: StateSyncItem; now: number; linkTitle?: boolean }) {
  return (
    <section id={`statesync-${s.namespace}-${s.name}`} className="card" aria-labelledby={`ss-${s.namespace}-${s.name}`} data-testid={`statesync-${s.namespace}-${s.name}`}>
      <h2 id={`ss-${s.namespace}-${s.name}`}>
        {linkTitle ? (
          <Link href={stateSyncPath(s.namespace, s.name)}>
            {s.namespace}/{s.name}
          </Link>
        ) : (
          <>
            {s.namespace}/{s.name}
          </>
        )}
      </h2>
      <p className="muted">
        Target component <code>{s.target.component}</code>, every {String(s.syncPeriod)}; syncables: {s.syncables.join(', ')}
      </p>
      {s.health === 'Degraded' ? (
        <p className="error" role="status">
          Degraded: {s.message}
        </p>
      ) : null}
      {s.replicas.length === 0 ? <p className="muted">No replica has reported yet.</p> : null}
      {s.replicas.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Replica (health)</th>
              <th scope="col">Syncable</th>
              <th scope="col">Syncable health</th>
              <th scope="col">Last cycle</th>
              <th scope="col">Entities pushed</th>
              <th scope="col">Entities pulled</th>
              <th scope="col">Last error</th>
              <th scope="col">Backoff</th>
            </tr>
          </thead>
          {groupByReplica(s.replicas).map(([replica, rows]) => {
            // Every row of a replica carries the replica's health (the API's worst of its syncables).
            const overall = rows[0]!.replicaHealth;
            return (
              <tbody key={replica} data-testid={`statesync-replica-${replica}`} data-health={overall.health}>
                {rows.map((r, i) => (
                  <tr key={r.syncable ?? ''} data-testid={`statesync-replica-${replica}-${r.syncable ?? 'all'}`}>
                    {i === 0 ? (
                      <th scope="rowgroup" rowSpan={rows.length}>
                        {replica} <HealthBadge health={overall.health} title={overall.message} />
                      </th>
                    ) : null}
                    <td>{r.syncable ?? '—'}</td>
                    <td>
                      <HealthBadge health={r.health.health} title={r.health.message} />
                    </td>
                    <td title={r.lastSuccessfulCycle}>{ago(r.lastSuccessfulCycle, now)}</td>
                    <td>{r.entitiesPushed}</td>
                    <td>{r.entitiesPulled}</td>
                    <td className={r.lastError ? 'error' : 'muted'}>{r.lastError ?? 'none'}</td>
                    <td className={r.backingOff ? 'warning' : undefined}>
                      {r.backingOff ? `backing off: next cycle in ${r.backoffSeconds} s` : `no (next cycle in ${r.backoffSeconds} s)`}
                    </td>
                  </tr>
                ))}
              </tbody>
            );
          })}
        </table>
      ) : null}
    </section>
  );
}
