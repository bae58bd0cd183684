'use client';
import { useQuery } from '@tanstack/react-query';
import { Bar, CartesianGrid, ComposedChart, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { QueryState } from '../../components/query-state.tsx';
import { useTRPC } from '../../lib/trpc.ts';
import { withKeyHitRatio, windowKeyHitRatio } from './key-hit-ratio.ts';
import { fillMinutes } from './minute-series.ts';
import styles from './sticky.module.css';

const WINDOW_MINUTES = 60;
const minuteLabel = (iso: string) => new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
const percent = (r: number | null | undefined) => (r === null || r === undefined ? '—' : `${Math.round(r * 1000) / 10} %`);

/**
 * Teleports per minute over the last hour (bars) with total requests, sticky requests and
 * missing keys (lines, right axis), and below it the key hit ratio (share of requests that
 * carried their sticky key; see key-hit-ratio.ts), from the persisted rollups. The figcaption is the text
 * version of the chart.
 */
export function StickyHistoryChart({ namespace, fn }: { namespace: string; fn: string }) {
  const trpc = useTRPC();
  const history = useQuery(trpc.sticky.history.queryOptions({ namespace, function: fn, minutes: WINDOW_MINUTES }));
  const points = withKeyHitRatio(fillMinutes(history.data?.points ?? [], new Date(), WINDOW_MINUTES));
  const teleports = points.reduce((s, p) => s + p.teleports, 0);
  const missing = points.reduce((s, p) => s + p.missingKeys, 0);
  const sticky = points.reduce((s, p) => s + p.stickyRequests, 0);
  const requests = points.reduce((s, p) => s + p.requests, 0);
  const ratio = windowKeyHitRatio(points);
  const peak = points.reduce((best, p) => (p.teleports > best.teleports ? p : best), points[0]!);
  return (
    <figure className="card" style={{ margin: 0 }} data-testid={`sticky-chart-${namespace}-${fn}`} aria-labelledby={`sticky-chart-title-${namespace}-${fn}`}>
      <h3 id={`sticky-chart-title-${namespace}-${fn}`} style={{ margin: '0 0 8px', fontSize: 15 }}>
        {namespace}/{fn}: teleports over the last hour
      </h3>
      <QueryState isLoading={history.isLoading} error={history.error} />
      <div className={styles.chart} aria-hidden="true">
        <ResponsiveContainer>
          <ComposedChart data={points} accessibilityLayer={false}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="minute" tickFormatter={minuteLabel} minTickGap={24} />
            <YAxis yAxisId="teleports" allowDecimals={false} />
            <YAxis yAxisId="requests" orientation="right" allowDecimals={false} />
            <Tooltip labelFormatter={(v) => (typeof v === 'string' ? minuteLabel(v) : '')} />
            <Legend />
            <Bar yAxisId="teleports" dataKey="teleports" name="teleports" fill="var(--degraded)" isAnimationActive={false} />
            <Line yAxisId="requests" type="monotone" dataKey="requests" name="requests" stroke="var(--muted)" dot={false} isAnimationActive={false} />
            <Line yAxisId="requests" type="monotone" dataKey="stickyRequests" name="sticky requests" stroke="var(--accent)" dot={false} isAnimationActive={false} />
            <Line yAxisId="requests" type="monotone" dataKey="missingKeys" name="missing keys" stroke="var(--warning)" strokeDasharray="5 3" dot={false} isAnimationActive={false} />
          </ComposedChart>
        </ResponsiveContainer>
      </div>
      {/* A ratio needs its own 0–100 % scale: a third axis beside two count axes was unreadable. */}
      <div className={styles.ratioChart} aria-hidden="true">
        <ResponsiveContainer>
          {/* The right margin stands in for the counts chart's right axis, so both charts' minutes line up. */}
          <LineChart data={points} accessibilityLayer={false} margin={{ top: 5, right: 65, bottom: 5, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="minute" tickFormatter={minuteLabel} minTickGap={24} hide />
            <YAxis domain={[0, 1]} ticks={[0, 0.5, 1]} tickFormatter={(v: number) => `${Math.round(v * 100)}%`} />
            <Tooltip labelFormatter={(v) => (typeof v === 'string' ? minuteLabel(v) : '')} formatter={(value) => percent(typeof value === 'number' ? value : null)} />
            <Legend />
            <Line type="stepAfter" dataKey="keyHitRatio" name="key hit ratio" stroke="var(--healthy)" dot={false} connectNulls={false} isAnimationActive={false} />
          </LineChart>
        </ResponsiveContainer>
      </div>
      <figcaption className="muted" data-testid={`sticky-history-summary-${namespace}-${fn}`}>
        Last hour: {teleports} teleports, {requests} requests, {sticky} sticky requests, {missing} missing keys, key hit ratio {percent(ratio)}
        {teleports > 0 && peak ? `; most teleports (${peak.teleports}) at ${minuteLabel(peak.minute)}` : ''}.
      </figcaption>
    </figure>
  );
}
