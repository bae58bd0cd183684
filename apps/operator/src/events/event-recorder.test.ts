import { describe, expect, it } from 'vitest';
import { type EventSink, EventRecorder } from './event-recorder.ts';
import { LocalEventLog } from './local-event-log.ts';

const target = { apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', namespace: 'ns', name: 'f', uid: 'u1' };

describe('EventRecorder', () => {
  it('writes one Event per series and counts repeats on it; another message is another Event', async () => {
    const log = new LocalEventLog();
    const rec = new EventRecorder(log);
    rec.record(target, { reason: 'RevisionCreated', message: 'created revision f-00001' });
    rec.record(target, { reason: 'RevisionCreated', message: 'created revision f-00001' });
    rec.record(target, { reason: 'RevisionReady', message: 'revision f-00001 is ready' });
    await rec.flush();
    const events = log.list({ namespace: 'ns', kind: 'Function', name: 'f' });
    expect(events.map((e) => [e.type, e.reason, e.count]).sort()).toEqual([
      ['Normal', 'RevisionCreated', 2],
      ['Normal', 'RevisionReady', 1],
    ]);
    expect(events.find((e) => e.reason === 'RevisionCreated')).toMatchObject({ involvedObject: target, reportingController: 'orrery.dev/operator' });
  });

  it('rate-limits per object: a crash loop of distinct messages stops at the burst and is counted as dropped', async () => {
    const log = new LocalEventLog();
    const outcomes: string[] = [];
    const rec = new EventRecorder(log, { limits: { burst: 5, refillMs: 60_000 }, now: () => 1_000 });
    rec.observeWith({ event: (_t, _r, outcome) => outcomes.push(outcome) });
    for (let i = 0; i < 50; i++) rec.record(target, { reason: 'RevisionFailed', message: `WorkerCrashing: ${i} restarts` });
    await rec.flush();
    expect(log.list({ namespace: 'ns' })).toHaveLength(5);
    expect(outcomes.filter((o) => o === 'dropped')).toHaveLength(45);
    // Another object has its own budget.
    rec.record({ ...target, name: 'g' }, { reason: 'RevisionFailed', message: 'x' });
    await rec.flush();
    expect(log.list({ namespace: 'ns', kind: 'Function', name: 'g' })).toHaveLength(1);
  });

  it('a failed write never throws into the reconcile and is written anew (a create) next time', async () => {
    const modes: string[] = [];
    let fail = true;
    const sink: EventSink = {
      async write(_t, _e, entry, mode) {
        modes.push(mode);
        if (fail) throw new Error('api server down');
        return entry.count;
      },
    };
    const logs: string[] = [];
    const rec = new EventRecorder(sink, { log: (m) => logs.push(m) });
    rec.record(target, { reason: 'Scaled', message: 'scaled from 0 to 1' });
    await rec.flush();
    fail = false;
    rec.record(target, { reason: 'Scaled', message: 'scaled from 0 to 1' });
    await rec.flush();
    expect(modes).toEqual(['create', 'create']);
    expect(logs[0]).toContain('event Scaled on Function ns/f not written: api server down');
  });

  it('caps long messages', async () => {
    const log = new LocalEventLog();
    const rec = new EventRecorder(log);
    rec.record(target, { reason: 'ReconcileFailed', message: 'x'.repeat(5000) });
    await rec.flush();
    expect(log.list({ namespace: 'ns' })[0]!.message.length).toBeLessThanOrEqual(1024);
  });
});
