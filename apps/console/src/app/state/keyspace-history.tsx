'use client';
import { useQuery } from '@tanstack/react-query';
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { QueryState } from '../../components/query-state.tsx';
import { useTRPC } from '../../lib/trpc.ts';
import styles from './state.module.css';

const minuteLabel = (iso: string) => new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });

/** Keys of one keyspace over the last hour (per-minute rollups), with a text summary for screen readers. */
export function KeyspaceHistory({ namespace, keyspace }: { namespace: string; keyspace: string }) {
  const trpc = useTRPC();
  const history = useQuery(trpc.state.history.queryOptions({ namespace, keyspace, minutes: 60 }));
  const points = history.data?.points ?? [];
  const last = points.at(-1);
  const summary = last
    ? `Keyspace ${keyspace}: ${points.length} minutes of history; latest ${last.keys} keys, ${last.bytes} bytes at ${minuteLabel(last.minute)}`
    : `Keyspace ${keyspace}: no history yet (rollups are written once a minute)`;
  return (
    <figure aria-label={`Keys of ${keyspace} over the last hour`} style={{ margin: 0 }}>
      <QueryState isLoading={history.isLoading} error={history.error} />
      {points.length > 0 ? (
        <div className={styles.chart} aria-hidden="true">
          <ResponsiveContainer>
            <LineChart data={points} accessibilityLayer={false}>
              <CartesianGrid strokeDasharray="3 3" />
              <XAxis dataKey="minute" tickFormatter={minuteLabel} />
              <YAxis yAxisId="keys" allowDecimals={false} />
              <YAxis yAxisId="bytes" orientation="right" />
              <Tooltip labelFormatter={(v) => (typeof v === 'string' ? minuteLabel(v) : '')} />
              <Legend />
              <Line yAxisId="keys" type="monotone" dataKey="keys" name="keys" stroke="var(--accent)" dot={false} isAnimationActive={false} />
              <Line yAxisId="bytes" type="monotone" dataKey="bytes" name="bytes" stroke="var(--warning)" strokeDasharray="5 3" dot={false} isAnimationActive={false} />
            </LineChart>
          </ResponsiveContainer>
        </div>
      ) : null}
      <figcaption className="muted">{summary}</figcaption>
    </figure>
  );
}
