'use client';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@orrery/api';
import { STICKY_SECTION_ID } from '@orrery/spec';
import { useRequestRate } from './use-request-rate.ts';
import styles from './function-detail.module.css';

type Live = inferRouterOutputs<AppRouter>['functions']['live'];

/**
 * The function's live router counters (functions.live's sticky totals, summed over every replica since it started) and
 * a whole-function request rate from successive samples (per-revision load: revision-load.tsx).
 */
export function StickyPanel({ live, sampledAt }: { live: Live | undefined; sampledAt: number }) {
  const t = live?.sticky ?? undefined;
  const rate = useRequestRate(t?.requests, sampledAt);
  const up = live?.replicas.filter((r) => r.ok).length ?? 0;
  const cells: Array<[string, string, string]> = t
    ? [
        ['sticky-requests', 'Requests', String(t.requests)],
        ['sticky-sticky-requests', 'Sticky requests', String(t.stickyRequests)],
        ['sticky-missing-keys', 'Missing sticky keys', String(t.stickyKeyMissing)],
        ['sticky-teleports', 'Teleports', String(t.teleports)],
        ['sticky-hit-ratio', 'Hit ratio', t.hitRatio === null ? '—' : `${Math.round(t.hitRatio * 1000) / 10} %`],
      ]
    : [];
  return (
    <section id={STICKY_SECTION_ID} className={`card ${styles.panel}`} aria-labelledby="sticky-heading">
      <h2 id="sticky-heading">Live traffic and sticky routing</h2>
      <p>
        Request rate: <strong data-testid="function-rps">{rate === null ? '—' : `${rate.toFixed(1)} req/s`}</strong>{' '}
        <span className="muted">
          (whole function, from successive samples of the routers&apos; request counters every 2 s; per revision above)
        </span>
      </p>
      {live && live.replicas.length > 0 ? (
        <p className="muted" data-testid="sticky-replicas">
          {up} of {live.replicas.length} router replicas answered.
        </p>
      ) : null}
      {t ? (
        <dl className="grid">
          {cells.map(([id, label, value]) => (
            <div key={id}>
              <dt className="muted">{label}</dt>
              <dd data-testid={id} style={{ margin: 0, fontSize: 20, fontWeight: 700 }}>
                {value}
              </dd>
            </div>
          ))}
        </dl>
      ) : live ? (
        <p className="muted" data-testid="sticky-none">
          No router replica has served this function since it started.
        </p>
      ) : null}
      <p className="muted">Counters are totals since each router replica started. Teleports over time are on the Sticky page.</p>
    </section>
  );
}
