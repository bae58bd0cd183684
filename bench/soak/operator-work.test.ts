import { describe, expect, it } from 'vitest';
import { operatorWork, parseMetrics, sumBy } from './operator-work.ts';

const scrape = (reconciles: number, errors: number, cpu: number) => `# HELP orrery_operator_reconcile_total Reconciles.
# TYPE orrery_operator_reconcile_total counter
orrery_operator_reconcile_total{kind="Function",result="success"} ${reconciles}
orrery_operator_reconcile_total{kind="Function",result="error"} ${errors}
orrery_operator_reconcile_total{kind="Revision",result="success"} ${2 * reconciles}
orrery_operator_reconcile_duration_seconds_sum{kind="Function"} ${reconciles / 100}
orrery_operator_reconcile_duration_seconds_bucket{le="+Inf",kind="Function"} ${reconciles}
orrery_operator_events_total{type="Normal",reason="Created",outcome="created"} ${errors}
process_cpu_seconds_total ${cpu}
nodejs_eventloop_lag_p50_seconds 0.0101
nodejs_eventloop_lag_p99_seconds 0.05
nodejs_eventloop_lag_max_seconds 1.5
orrery_operator_worker_start_waits_total ${errors * 2}
orrery_operator_worker_start_wait_seconds_total ${cpu / 10}
`;

describe('parseMetrics', () => {
  it('reads names, labels (escapes too) and values, skipping comments', () => {
    const s = parseMetrics('# HELP x y\nx_total{a="1",b="q\\"uote"} 3\ny 1.5e3 1700000000\nz{le="+Inf"} +Inf\n');
    expect(s).toEqual([
      { name: 'x_total', labels: { a: '1', b: 'q"uote' }, value: 3 },
      { name: 'y', labels: {}, value: 1500 },
      { name: 'z', labels: { le: '+Inf' }, value: Infinity },
    ]);
  });

  it('sums by a label', () => {
    expect(sumBy(parseMetrics(scrape(10, 2, 1)), 'orrery_operator_reconcile_total', 'kind')).toEqual(new Map([['Function', 12], ['Revision', 20]]));
  });
});

describe('operatorWork', () => {
  it('takes counters as differences and the loop delay from the last scrape', () => {
    const w = operatorWork(parseMetrics(scrape(10, 1, 4)), parseMetrics(scrape(110, 6, 10.5)));
    expect(w.reconciles).toEqual([
      { kind: 'Function', success: 100, error: 5, seconds: 1 },
      { kind: 'Revision', success: 200, error: 0, seconds: 0 },
    ]);
    expect(w.events).toEqual({ created: 5 });
    expect(w.cpuSeconds).toBeCloseTo(6.5);
    expect(w.eventLoop).toEqual({ p50ms: 10.1, p99ms: 50, maxms: 1500 });
    expect(w.startWaits.count).toBe(10);
    expect(w.startWaits.seconds).toBeCloseTo(0.65);
  });

  it('reads no start waits from an operator without start slots (the Kubernetes backend)', () => {
    const bare = (cpu: number) => `process_cpu_seconds_total ${cpu}\n`;
    expect(operatorWork(parseMetrics(bare(1)), parseMetrics(bare(2))).startWaits).toEqual({ count: 0, seconds: 0 });
  });
});
