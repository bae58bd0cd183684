'use client';
import { useQuery } from '@tanstack/react-query';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@orrery/api';
import { KEYSPACE_WRITES_SECTION_ID } from '@orrery/spec';
import { DataTable } from '../../components/data-table.tsx';
import { QueryState } from '../../components/query-state.tsx';
import { useTRPC } from '../../lib/trpc.ts';
import { feedStrip, formatAge, formatRetention, type FeedStrip } from './feed-strip.ts';
import { formatBytes } from './format-bytes.ts';
import styles from './state.module.css';

type Writes = inferRouterOutputs<AppRouter>['state']['keyspaceWrites'];

const OP_COLOUR = { set: 'var(--accent)', delete: 'var(--degraded)', expire: 'var(--unknown)' } as const;

/**
 * What one keyspace's writes leave behind (state.keyspaceWrites, refreshed with the other live
 * queries): the change feed's retained window drawn as a strip with the newest changes on it, the
 * stored idempotency outcomes, and the keys' fences with the late writes they stopped. Store
 * numbers are the platform's; replay, claim and refusal counts are the answering statesvc
 * replica's since it started, and the panel says so. Values are never shown.
 */
export function KeyspaceWritesPanel({ namespace, keyspace }: { namespace: string; keyspace: string }) {
  const trpc = useTRPC();
  const q = useQuery(trpc.state.keyspaceWrites.queryOptions({ namespace, keyspace }));
  const d = q.data;
  return (
    <section id={KEYSPACE_WRITES_SECTION_ID} aria-labelledby="keyspace-writes-title" className="card" data-testid="keyspace-writes-panel">
      <h2 id="keyspace-writes-title">Change feed, idempotency and fences</h2>
      <QueryState isLoading={q.isLoading} error={q.error} />
      {d ? (
        <>
          {d.hashed ? (
            <p className="muted" data-testid="keyspace-writes-hashed">
              Keys are shown as keyed hashes (<code>h:…</code>), the same ids as in the hot-keys panel.
            </p>
          ) : null}
          <ChangeFeed d={d} keyspace={keyspace} />
          <Idempotency d={d} />
          <Fences d={d} />
          <p className="muted">
            Counts marked &quot;this replica&quot; are statesvc <code>{d.replica}</code>&apos;s since {new Date(d.countingSince).toLocaleString()}; other replicas count their own.
          </p>
        </>
      ) : null}
    </section>
  );
}

function ChangeFeed({ d, keyspace }: { d: Writes; keyspace: string }) {
  const c = d.changes;
  const strip = feedStrip(c.oldestAt, c.recent, Date.now());
  const retained = c.head - c.low;
  return (
    <>
      <h3 className={styles.subhead}>Change feed</h3>
      <p data-testid="feed-summary">
        <span data-testid="feed-head">{c.head}</span> changes recorded, <span data-testid="feed-retained">{retained}</span> retained
        {strip.spanMs !== null ? ` (the last ${formatAge(strip.spanMs)})` : ''}; <span data-testid="feed-streams">{c.openStreams}</span> open stream
        {c.openStreams === 1 ? '' : 's'} (this replica). Kept: {formatRetention(c.retentionMs, c.retentionEvents)}.
        {c.low > 0 ? ` A reader resuming from before change ${c.low + 1} gets 410 changes_expired and re-reads the keys.` : ''}
      </p>
      {strip.spanMs !== null ? <Strip strip={strip} keyspace={keyspace} /> : null}
      <DataTable
        data-testid="feed-table"
        caption="Newest changes first"
        columns={['Seq', 'Key', 'Op', 'Version', 'Age']}
        rows={strip.ticks}
        empty={
          <p className="muted" data-testid="feed-empty">
            No change retained: <code>GET /v1/changes</code> readers are waiting for the next write.
          </p>
        }
        row={(t, i) => (
          <tr key={t.seq} data-testid={`feed-change-${i}`} data-op={t.op}>
            <td className={styles.num}>{t.seq}</td>
            <th scope="row" className={styles.keyCell}>
              <code data-testid={`feed-change-key-${i}`}>{t.key}</code>
            </th>
            <td>
              <span className="badge" style={{ color: OP_COLOUR[t.op] }}>
                {t.op}
              </span>
            </td>
            <td className={styles.num}>{c.recent[i]!.version}</td>
            <td className={styles.num}>{formatAge(t.ageMs)}</td>
          </tr>
        )}
      />
    </>
  );
}

/** The retained window, oldest change at the left and now at the right, a tick per recent change. */
function Strip({ strip, keyspace }: { strip: FeedStrip; keyspace: string }) {
  const label = `${keyspace}'s change feed over the last ${formatAge(strip.spanMs ?? 0)}: ${strip.ticks.length} newest changes marked (${(['set', 'delete', 'expire'] as const)
    .map((op) => `${strip.ticks.filter((t) => t.op === op).length} ${op}`)
    .join(', ')})`;
  return (
    <figure className={styles.feedStrip}>
      <svg viewBox="0 0 1000 36" preserveAspectRatio="none" role="img" aria-label={label} data-testid="feed-strip">
        <rect x="0" y="12" width="1000" height="12" rx="6" fill="var(--border)" />
        {strip.ticks.map((t) => (
          <rect key={t.seq} x={Math.min(997, t.x * 1000)} y="4" width="3" height="28" fill={OP_COLOUR[t.op]} data-op={t.op} />
        ))}
      </svg>
      <figcaption className="muted">
        <span>oldest retained</span>
        <span>
          <span style={{ color: OP_COLOUR.set }}>■</span> set <span style={{ color: OP_COLOUR.delete }}>■</span> delete <span style={{ color: OP_COLOUR.expire }}>■</span> expire
        </span>
        <span>now</span>
      </figcaption>
    </figure>
  );
}

function Idempotency({ d }: { d: Writes }) {
  const i = d.idempotency;
  return (
    <>
      <h3 className={styles.subhead}>Idempotent writes</h3>
      <dl className={styles.facts} data-testid="idempotency-facts">
        <dt>Stored outcomes</dt>
        <dd data-testid="idempotency-records">{i.records}</dd>
        <dt>Held against the byte budget</dt>
        <dd>{formatBytes(i.bytes)}</dd>
        <dt>Kept for</dt>
        <dd>{formatAge(i.retentionMs)}</dd>
        <dt>Retries answered from a stored outcome (this replica)</dt>
        <dd data-testid="idempotency-replayed">{i.replayed}</dd>
        <dt>Same key, different request: 422 (this replica)</dt>
        <dd data-testid="idempotency-mismatched" className={i.mismatched > 0 ? 'warning' : undefined}>
          {i.mismatched}
        </dd>
      </dl>
    </>
  );
}

function Fences({ d }: { d: Writes }) {
  const f = d.fences;
  return (
    <>
      <h3 className={styles.subhead}>Fences</h3>
      <dl className={styles.facts} data-testid="fence-facts">
        <dt>Keys holding a fence</dt>
        <dd data-testid="fence-keys">{f.keys}</dd>
        <dt>Claims (this replica)</dt>
        <dd data-testid="fence-claimed">{f.claimed}</dd>
        <dt>Late writes refused: 409 fenced (this replica)</dt>
        <dd data-testid="fence-refused">
          {f.refused}
          {f.refused > 0 ? (
            <>
              {' '}
              <span className="badge warning">a stale owner wrote after its key moved</span>
            </>
          ) : null}
        </dd>
      </dl>
      <DataTable
        data-testid="fence-table"
        caption="Most recently claimed keys, newest first"
        columns={['Key', 'Current fence']}
        rows={f.newest}
        empty={
          <p className="muted" data-testid="fence-empty">
            No key was claimed: the keyspace&apos;s Function does not use <code>spec.state.fencing</code>, or no worker has written yet.
          </p>
        }
        row={(x, i) => (
          <tr key={x.key} data-testid={`fence-${i}`}>
            <th scope="row" className={styles.keyCell}>
              <code data-testid={`fence-key-${i}`}>{x.key}</code>
            </th>
            <td className={styles.num}>{x.fence}</td>
          </tr>
        )}
      />
    </>
  );
}
