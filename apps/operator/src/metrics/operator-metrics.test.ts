import { describe, expect, it } from 'vitest';
import { WorkQueue } from '../queue/work-queue.ts';
import { OperatorMetrics, decisionKind } from './operator-metrics.ts';

const sample = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : undefined;
};
const decision = (desired: number, mode: 'stable' | 'panic' = 'stable') => ({ desired, mode, activator: { inPath: false, excessBurstCapacity: 0, reason: '' }, reason: 'r' });

describe('decisionKind', () => {
  it('names a first decision, a scale change either way, and a mode-only change', () => {
    expect(decisionKind(undefined, decision(1))).toBe('initial');
    expect(decisionKind(decision(1), decision(3))).toBe('scale_up');
    expect(decisionKind(decision(3), decision(0))).toBe('scale_down');
    expect(decisionKind(decision(3), decision(3, 'panic'))).toBe('mode_change');
  });
});

describe('OperatorMetrics', () => {
  it('counts reconciles per kind and result through the work queue, with durations and errors', async () => {
    const m = new OperatorMetrics({ defaultMetrics: false });
    let fail = true;
    const q = new WorkQueue(
      async (k) => {
        if (k === 'ns/bad' && fail) {
          fail = false;
          throw new Error('boom');
        }
      },
      { baseDelayMs: 1, ...m.queueOptions('Function') },
    );
    q.add('ns/a');
    q.add('ns/bad');
    for (let i = 0; i < 100; i++) {
      const text = await m.registry.metrics();
      if (sample(text, 'orrery_operator_reconcile_total{kind="Function",result="success"}') === 2) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    q.stop();
    const text = await m.registry.metrics();
    expect(sample(text, 'orrery_operator_reconcile_total{kind="Function",result="success"}')).toBe(2);
    expect(sample(text, 'orrery_operator_reconcile_total{kind="Function",result="error"}')).toBe(1);
    expect(sample(text, 'orrery_operator_reconcile_errors_total{kind="Function"}')).toBe(1);
    expect(sample(text, 'orrery_operator_reconcile_duration_seconds_count{kind="Function"}')).toBe(3);
  });

  it('reads queue depth, leadership and the KPA scales at scrape time', async () => {
    let leading = false;
    const m = new OperatorMetrics({ defaultMetrics: false, isLeader: () => leading });
    const queue = { length: 4 };
    m.watchQueue('Revision', queue);
    const scales = [{ namespace: 'ns', function: 'f', revision: 'f-00001', desired: 3, ready: 1, mode: 'panic' as const }];
    m.watchAutoscaler({ scales: () => scales });
    let text = await m.registry.metrics();
    expect(sample(text, 'orrery_operator_workqueue_depth{kind="Revision"}')).toBe(4);
    expect(sample(text, 'orrery_operator_leader')).toBe(0);
    expect(sample(text, 'orrery_operator_autoscaler_desired_scale{namespace="ns",function="f",revision="f-00001"}')).toBe(3);
    expect(sample(text, 'orrery_operator_autoscaler_actual_scale{namespace="ns",function="f",revision="f-00001"}')).toBe(1);
    expect(sample(text, 'orrery_operator_autoscaler_panic_mode{namespace="ns",function="f",revision="f-00001"}')).toBe(1);
    leading = true;
    queue.length = 0;
    scales.length = 0; // a forgotten revision leaves no series behind
    text = await m.registry.metrics();
    expect(sample(text, 'orrery_operator_workqueue_depth{kind="Revision"}')).toBe(0);
    expect(sample(text, 'orrery_operator_leader')).toBe(1);
    expect(text).not.toContain('revision="f-00001"');
  });

  it('reads the local platform\'s worker start slots at scrape time (none without them)', async () => {
    const m = new OperatorMetrics({ defaultMetrics: false });
    expect(await m.registry.metrics()).not.toContain('orrery_operator_worker_starts{');
    // The local backend's start slots, as the metrics see them.
    const now = { starting: 1, waiting: 1, count: 0, seconds: 0 };
    m.watchWorkerStarts({ counts: () => ({ starting: now.starting, waiting: now.waiting }), waits: () => ({ count: now.count, seconds: now.seconds }) });
    let text = await m.registry.metrics();
    expect(sample(text, 'orrery_operator_worker_starts{state="starting"}')).toBe(1);
    expect(sample(text, 'orrery_operator_worker_starts{state="waiting"}')).toBe(1);
    expect(sample(text, 'orrery_operator_worker_start_waits_total')).toBe(0);
    Object.assign(now, { waiting: 0, count: 1, seconds: 1.5 });
    text = await m.registry.metrics();
    expect(sample(text, 'orrery_operator_worker_starts{state="waiting"}')).toBe(0);
    expect(sample(text, 'orrery_operator_worker_start_waits_total')).toBe(1);
    expect(sample(text, 'orrery_operator_worker_start_wait_seconds_total')).toBe(1.5);
  });

  it('counts KPA decisions per function, not per revision', async () => {
    const m = new OperatorMetrics({ defaultMetrics: false });
    m.decided('ns/f-00001', 'f', undefined, decision(1));
    m.decided('ns/f-00001', 'f', decision(1), decision(4));
    m.decided('ns/f-00002', 'f', decision(4), decision(2));
    m.decided('ns/f-00002', 'f', decision(2), decision(5));
    const text = await m.registry.metrics();
    expect(sample(text, 'orrery_operator_autoscaler_decisions_total{namespace="ns",function="f",decision="initial"}')).toBe(1);
    expect(sample(text, 'orrery_operator_autoscaler_decisions_total{namespace="ns",function="f",decision="scale_up"}')).toBe(2);
    expect(sample(text, 'orrery_operator_autoscaler_decisions_total{namespace="ns",function="f",decision="scale_down"}')).toBe(1);
    expect(text).not.toMatch(/autoscaler_decisions_total\{[^}]*revision=/);
  });

  it('includes the standard process_* and nodejs_* metrics without a prefix by default', async () => {
    const text = await new OperatorMetrics().registry.metrics();
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes /m);
  });
});
