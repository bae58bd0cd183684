'use client';
import Link from 'next/link';
import { useQuery } from '@tanstack/react-query';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@orrery/api';
import { functionPath, statePath } from '@orrery/spec';
import { DataTable } from '../components/data-table.tsx';
import { HealthBadge } from '../components/health-badge.tsx';
import { NoFunctions } from '../components/no-functions.tsx';
import { QueryState } from '../components/query-state.tsx';
import { useTRPC } from '../lib/trpc.ts';
import { formatBytes } from './state/format-bytes.ts';
import { AuditResultBadge } from '../components/audit-result-badge.tsx';
import styles from './overview.module.css';

type Summary = inferRouterOutputs<AppRouter>['overview']['summary'];

/** "Is it healthy, who is using what, what changed": one server-side aggregate, refreshed with the other lists. */
export default function Overview() {
  const trpc = useTRPC();
  const q = useQuery(trpc.overview.summary.queryOptions({ auditLimit: 10 }));
  const s = q.data;
  return (
    <>
      <h1>Overview</h1>
      <QueryState isLoading={q.isLoading} error={q.error} />
      {s ? (
        <>
          <Components components={s.components} />
          <Counts counts={s.counts} />
          <Alerts alerts={s.alerts} />
          <Usage functions={s.functions} namespaces={s.namespaces} />
          <RecentAudit rows={s.recentAudit} />
          <p className="muted">
            Generated <time dateTime={s.generatedAt}>{new Date(s.generatedAt).toLocaleTimeString()}</time>; refreshes every 2 s.
          </p>
        </>
      ) : null}
    </>
  );
}

function Components({ components }: { components: Summary['components'] }) {
  return (
    <section aria-labelledby="health-heading">
      <h2 id="health-heading">Health</h2>
      <div className={styles.components}>
        {components.map((c) => (
          <div key={c.id} className={`card ${styles.component}`} data-testid={`health-${c.id}`} data-health={c.health}>
            <Link href={c.link} className={styles.componentName}>
              {c.label}
            </Link>
            <HealthBadge health={c.health} />
            <p className={`muted ${styles.message}`}>{c.message}</p>
          </div>
        ))}
      </div>
    </section>
  );
}

function Counts({ counts }: { counts: Summary['counts'] }) {
  const items: Array<{ id: string; label: string; value: string; href: string }> = [
    { id: 'functions', label: 'Functions', value: String(counts.functions), href: '/functions' },
    { id: 'revisions', label: 'Revisions', value: String(counts.revisions), href: '/functions' },
    { id: 'registry-clusters', label: 'Registry clusters', value: String(counts.registryClusters), href: '/registry' },
    { id: 'statesyncs', label: 'StateSync', value: String(counts.stateSyncs), href: '/statesync' },
    { id: 'router-replicas', label: 'Router replicas up', value: `${counts.routerReplicasUp} / ${counts.routerReplicas}`, href: '/sticky' },
  ];
  return (
    <section aria-labelledby="counts-heading">
      <h2 id="counts-heading">Counts</h2>
      <dl className={styles.counts}>
        {items.map((i) => (
          <div key={i.id} className="card">
            <dt className="muted">
              <Link href={i.href}>{i.label}</Link>
            </dt>
            <dd className={styles.count} data-testid={`count-${i.id}`}>
              {i.value}
            </dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

function Alerts({ alerts }: { alerts: Summary['alerts'] }) {
  return (
    <section aria-labelledby="alerts-heading">
      <h2 id="alerts-heading">
        Alerts <span className="muted">({alerts.length})</span>
      </h2>
      {alerts.length === 0 ? (
        <p className="muted" data-testid="alerts-none">
          No alerts: quotas under 90 %, no teleport spikes, no lagging learners, no statesync backoff, no key above 20 % of its keyspace and no saturated sticky owner.
        </p>
      ) : (
        <ul className={styles.alerts}>
          {alerts.map((a) => (
            <li key={`${a.kind}:${a.message}`} className={`card ${styles.alert}`} data-testid="alert" data-kind={a.kind} data-severity={a.severity}>
              <span className={`badge ${a.severity === 'critical' ? 'error' : 'warning'}`}>{a.severity === 'critical' ? '✕ critical' : '! warning'}</span>{' '}
              <span className={styles.kind}>{a.kind}</span> {a.message} <Link href={a.link}>Look</Link>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Usage({ functions, namespaces }: { functions: Summary['functions']; namespaces: Summary['namespaces'] }) {
  return (
    <section aria-labelledby="usage-heading">
      <h2 id="usage-heading">Who is using what</h2>
      <DataTable
        caption="Functions with health, requests since the routers started and keyspace usage"
        columns={['Function', 'Health', 'Serving', 'Requests', 'Teleports', 'Keys used']}
        rows={functions}
        empty={<NoFunctions />}
        row={(f) => (
          <tr key={`${f.namespace}/${f.name}`} data-testid={`overview-function-${f.name}`}>
            <td>
              <Link href={functionPath(f.namespace, f.name)}>
                {f.namespace}/{f.name}
              </Link>
            </td>
            <td>
              <HealthBadge health={f.health} title={f.message} />
            </td>
            <td>{f.traffic.length ? f.traffic.map((t) => `${t.revisionName} ${t.percent} %`).join(', ') : <span className="muted">—</span>}</td>
            <td>{f.requests ?? <span className="muted">not seen</span>}</td>
            <td>{f.teleports ?? <span className="muted">—</span>}</td>
            <td>
              {f.state ? (
                f.state.keys === null ? (
                  <span className="muted">{f.state.keyspace}: usage unavailable</span>
                ) : (
                  `${f.state.keys} / ${f.state.maxKeys} (${f.state.keysPercent} %)`
                )
              ) : (
                <span className="muted">stateless</span>
              )}
            </td>
          </tr>
        )}
      />
      {namespaces.length > 0 ? (
        <ul className={styles.namespaces} aria-label="Keyed state per namespace">
          {namespaces.map((n) => (
            <li key={n.namespace} data-testid={`overview-namespace-${n.namespace}`}>
              <Link href={statePath(n.namespace)}>{n.namespace}</Link>: {n.keys} keys in {n.keyspaces} keyspace{n.keyspaces === 1 ? '' : 's'},{' '}
              {formatBytes(n.bytes)}
              {n.byteBudget > 0 ? ` of ${formatBytes(n.byteBudget)} (${Math.round((n.bytes / n.byteBudget) * 1000) / 10} %)` : ' (no byte budget)'}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

function RecentAudit({ rows }: { rows: Summary['recentAudit'] }) {
  return (
    <section aria-labelledby="recent-audit-heading">
      <h2 id="recent-audit-heading">
        What changed <Link href="/audit" className={styles.more}>Full audit log</Link>
      </h2>
      <DataTable
        caption="The ten newest audit log entries"
        columns={['When', 'Who', 'Action', 'Target', 'Result']}
        rows={rows}
        empty={<p className="muted">No audited actions yet.</p>}
        row={(r) => (
          <tr key={r.id} data-testid="recent-audit-row">
            <td>
              <time dateTime={r.at}>{new Date(r.at).toLocaleString()}</time>
            </td>
            <td>
              {r.who} <span className="muted">({r.role})</span>
            </td>
            <td>
              <Link href={`/audit?action=${encodeURIComponent(r.action)}`}>
                <code>{r.action}</code>
              </Link>
            </td>
            <td>{r.target}</td>
            <td>
              <AuditResultBadge result={r.result} title={r.error ?? undefined} />
            </td>
          </tr>
        )}
      />
    </section>
  );
}
