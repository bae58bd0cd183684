'use client';
import { useQuery } from '@tanstack/react-query';
import type { inferRouterOutputs } from '@trpc/server';
import { Bar, BarChart, CartesianGrid, Cell, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { AppRouter } from '@orrery/api';
import { HOT_KEY_ALERT_DEFAULT_SHARE, HOT_KEY_OWNER_BUSY_ALERT_SHARE, HOT_KEYS_SECTION_ID } from '@orrery/spec';
import { DataTable } from '../../components/data-table.tsx';
import { QueryState } from '../../components/query-state.tsx';
import { useTRPC } from '../../lib/trpc.ts';
import { formatRate, hotKeyBars, type HotKeyBar } from './hot-key-bars.ts';
import styles from './state.module.css';

type HotKeys = inferRouterOutputs<AppRouter>['state']['hotKeys'];
type StickyKey = NonNullable<HotKeys['sticky']>['keys'][number];

const pct = (share: number) => `${Math.round(share * 1000) / 10} %`;

/**
 * One keyspace's hottest keys now (state.hotKeys, refreshed with the other live queries): a bar
 * per key of its share of the keyspace's requests, the alert share drawn as a line, and below each
 * chart the same numbers as a table (the chart is for looking, the table for reading and screen
 * readers). For a sticky Function a second chart shows its sticky keys with their owner worker's
 * load. A viewer sees keyed hashes instead of keys.
 */
export function HotKeysPanel({ namespace, keyspace }: { namespace: string; keyspace: string }) {
  const trpc = useTRPC();
  const q = useQuery(trpc.state.hotKeys.queryOptions({ namespace, keyspace }));
  const d = q.data;
  const halfLife = d?.state.halfLifeSeconds ?? d?.sticky?.halfLifeSeconds ?? null;
  return (
    <section id={HOT_KEYS_SECTION_ID} aria-labelledby="hot-keys-title" className="card" data-testid="hot-keys-panel">
      <h2 id="hot-keys-title">Hot keys now</h2>
      <p className="muted">
        Each key&apos;s share of <code>{keyspace}</code>&apos;s requests, weighted towards the last half minute
        {halfLife ? ` (counts halve every ${halfLife} s)` : ''}. The overview alerts above {pct(HOT_KEY_ALERT_DEFAULT_SHARE)} (the dashed line).
      </p>
      <QueryState isLoading={q.isLoading} error={q.error} />
      {d?.hashed ? (
        <p className="muted" data-testid="hot-keys-hashed">
          Keys are shown as keyed hashes (<code>h:…</code>): the viewer role does not see key names. The same key always shows the same hash.
        </p>
      ) : null}
      {d ? (
        <>
          <h3 className={styles.subhead}>State calls</h3>
          {!d.state.ok ? (
            <p role="alert" className="error">
              statesvc: {d.state.error}
            </p>
          ) : d.state.keys.length === 0 ? (
            <p className="muted" data-testid="hot-keys-state-empty">
              No state calls in the last minutes.
            </p>
          ) : (
            <>
              <ShareChart bars={hotKeyBars(d.state.keys, d.state.rate, HOT_KEY_ALERT_DEFAULT_SHARE)} title={`Share of ${keyspace}'s state calls per key`} />
              <StateTable bars={hotKeyBars(d.state.keys, d.state.rate, HOT_KEY_ALERT_DEFAULT_SHARE)} total={d.state.rate} />
              <p className="muted">
                {formatRate(d.state.rate)} state calls in all.{' '}
                {d.state.boundRate > 0
                  ? `A share may be up to ${pct(d.state.boundRate / d.state.rate)} too high (${d.state.capacity} counters per keyspace), never too low.`
                  : `Fewer keys than the ${d.state.capacity} counters were seen: every share is exact.`}
              </p>
            </>
          )}
          {d.sticky ? <StickyPart sticky={d.sticky} fn={d.function ?? ''} /> : null}
        </>
      ) : null}
    </section>
  );
}

function ShareChart({ bars, title }: { bars: HotKeyBar[]; title: string }) {
  return (
    <div className={styles.hotChart} style={{ height: 48 + 30 * bars.length }} aria-hidden="true" title={title}>
      <ResponsiveContainer>
        <BarChart data={bars} layout="vertical" accessibilityLayer={false} margin={{ top: 5, right: 24, bottom: 5, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" horizontal={false} />
          <XAxis type="number" domain={[0, 100]} ticks={[0, 20, 40, 60, 80, 100]} tickFormatter={(v: number) => `${v}%`} />
          <YAxis type="category" dataKey="label" width={190} interval={0} />
          <Tooltip
            formatter={(value, _name, item) => [`${value} % (${formatRate((item.payload as HotKeyBar).rate)})`, (item.payload as HotKeyBar).key]}
            labelFormatter={() => ''}
          />
          <ReferenceLine x={HOT_KEY_ALERT_DEFAULT_SHARE * 100} stroke="var(--warning)" strokeDasharray="6 4" />
          <Bar dataKey="percent" name="share" isAnimationActive={false}>
            {bars.map((b) => (
              <Cell key={b.key} fill={b.hot ? 'var(--warning)' : 'var(--accent)'} />
            ))}
          </Bar>
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

function StateTable({ bars, total }: { bars: HotKeyBar[]; total: number }) {
  return (
    <DataTable
      data-testid="hot-keys-state-table"
      caption={`State calls per key, highest first, out of ${formatRate(total)}`}
      columns={['Key', 'Calls', 'Share', 'May be over by']}
      rows={bars}
      row={(b, i) => (
        <tr key={b.key} data-testid={`hot-key-state-${i}`} data-hot={b.hot ? 'true' : 'false'}>
          <th scope="row" className={styles.keyCell}>
            <code data-testid={`hot-key-state-key-${i}`}>{b.key}</code>
          </th>
          <td className={styles.num}>{formatRate(b.rate)}</td>
          <td className={styles.num}>
            <span data-testid={`hot-key-state-share-${i}`}>{b.percent} %</span>
            {b.hot ? (
              <>
                {' '}
                <span className="badge warning">hot</span>
              </>
            ) : null}
          </td>
          <td className={styles.num}>{b.errorPercent > 0 ? `${b.errorPercent} points` : '—'}</td>
        </tr>
      )}
    />
  );
}

function StickyPart({ sticky, fn }: { sticky: NonNullable<HotKeys['sticky']>; fn: string }) {
  const bars = hotKeyBars(sticky.keys, sticky.rate, HOT_KEY_ALERT_DEFAULT_SHARE);
  const down = sticky.replicas.filter((r) => !r.ok);
  return (
    <>
      <h3 className={styles.subhead}>
        Sticky requests to <code>{fn}</code> (key from {sticky.source} <code>{sticky.name}</code>)
      </h3>
      {down.length > 0 ? (
        <p className="warning" role="status">
          {down.length} of {sticky.replicas.length} router replicas did not answer: {down.map((r) => `${r.url} (${r.error})`).join(', ')}
        </p>
      ) : null}
      {sticky.keys.length === 0 ? (
        <p className="muted" data-testid="hot-keys-sticky-empty">
          No sticky requests in the last minutes.
        </p>
      ) : (
        <>
          <ShareChart bars={bars} title={`Share of ${fn}'s sticky requests per key`} />
          <DataTable
            data-testid="hot-keys-sticky-table"
            caption="Sticky requests per key with the owner worker's load"
            columns={['Key', 'Requests', 'Share', 'Owner worker', 'In flight / limit', 'Found the owner busy']}
            rows={sticky.keys}
            row={(k, i) => <StickyRow key={k.key} k={k} i={i} bar={bars[i]!} />}
          />
          <p className="muted">
            {formatRate(sticky.rate)} sticky requests over {sticky.replicas.filter((r) => r.ok).length} router replica(s). &quot;Found the owner busy&quot;: the part of the key&apos;s requests whose
            owner was at its concurrency limit, so they went to another worker or waited; at {pct(HOT_KEY_OWNER_BUSY_ALERT_SHARE)} or more the key has outgrown one worker.
          </p>
        </>
      )}
    </>
  );
}

function StickyRow({ k, i, bar }: { k: StickyKey; i: number; bar: HotKeyBar }) {
  const saturated = k.ownerBusyShare >= HOT_KEY_OWNER_BUSY_ALERT_SHARE;
  return (
    <tr data-testid={`hot-key-sticky-${i}`} data-saturated={saturated ? 'true' : 'false'}>
      <th scope="row" className={styles.keyCell}>
        <code data-testid={`hot-key-sticky-key-${i}`}>{k.key}</code>
      </th>
      <td className={styles.num}>{formatRate(k.rate)}</td>
      <td className={styles.num}>
        {bar.percent} %
        {bar.hot ? (
          <>
            {' '}
            <span className="badge warning">hot</span>
          </>
        ) : null}
      </td>
      <td>{k.owner ? <code>{k.owner.address}</code> : <span className="muted">no ready worker</span>}</td>
      <td className={styles.num}>{k.owner ? `${k.owner.inflight} / ${k.owner.concurrency === 0 ? '∞' : k.owner.concurrency}` : '—'}</td>
      <td className={styles.num}>
        <span data-testid={`hot-key-sticky-busy-${i}`}>{pct(k.ownerBusyShare)}</span>
        {saturated ? (
          <>
            {' '}
            <span className="badge error">saturated</span>
          </>
        ) : null}
      </td>
    </tr>
  );
}
