/**
 * A cron trigger on the local platform, end to end with real processes: orrery-operator (its
 * cron scheduler on a real clock), orrery-router, and the Function's worker running the real
 * runtime. A six-field schedule (explicit seconds, every 10 s) keeps the wait short. The tick
 * reaches the Function through the router with Orrery-Trigger and Orrery-Scheduled-Time, its run
 * lands in the Function's status (the API's function detail returns that object as it is), and
 * the operator records a CronTriggered Event. The scheduler's rules with fake clocks (failover,
 * Forbid, deadlines) are local-cron-scheduler.int.test.ts.
 */
import { freePort } from '@orrery/etcdcluster';
import type { CronTriggerStatus, OperatorEventList, OrreryFunction } from '@orrery/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Platform, revisionReady, startPlatform } from '../../testing/platform.ts';

// 203 only from the Function itself, and only when both trigger headers arrived as sent.
const HANDLER = `export default (req) => {
  const trigger = req.headers.get('orrery-trigger');
  const at = req.headers.get('orrery-scheduled-time');
  const ok = trigger === 'cron/beat' && /^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:[0-5]0Z$/.test(at ?? '') && req.headers.get('x-beat') === 'yes';
  return new Response(ok ? 'beat ' + at : 'unexpected', { status: ok ? 203 : 400 });
};`;

let p: Platform;
const record = async (): Promise<CronTriggerStatus | undefined> => ((await p.store.get('Function', 'default', 'heartbeat')) as OrreryFunction | undefined)?.status?.triggers?.cron?.[0];

beforeAll(async () => {
  // The operator sends triggered calls to the router, which starts after it: its port is chosen first.
  const routerPort = await freePort();
  p = await startPlatform({ operatorArgs: ['--router-url', `http://127.0.0.1:${routerPort}`], routerArgs: ['--port', String(routerPort)] });
}, 60_000);
afterAll(async () => {
  await p?.stop();
}, 30_000);

describe('a cron trigger on the local platform', () => {
  it('calls the Function through the router on each tick and keeps the runs in status', { timeout: 60_000 }, async () => {
    await p.store.apply({
      apiVersion: 'orrery.dev/v1alpha1',
      kind: 'Function',
      metadata: { name: 'heartbeat', namespace: 'default' },
      spec: {
        template: { source: { inline: HANDLER }, timeoutSeconds: 10, executor: 'deploy', autoscaling: { minScale: 1 } },
        triggers: { cron: [{ name: 'beat', schedule: '0,10,20,30,40,50 * * * * *', method: 'GET', headers: [{ name: 'X-Beat', value: 'yes' }] }] },
      },
    });
    // The scheduler records the trigger at once (since, nextScheduleTime), whatever the revision does.
    await expect.poll(record, { timeout: 10_000 }).toMatchObject({ name: 'beat', schedule: '0,10,20,30,40,50 * * * * *', since: expect.any(String), nextScheduleTime: expect.any(String) });
    await revisionReady(p, 'heartbeat-00001', 30_000);
    await p.publishRoutes();

    const since = Date.parse((await record())!.since!);
    await expect.poll(async () => (await record())?.runs?.filter((r) => r.outcome === 'Succeeded').length ?? 0, { timeout: 30_000, interval: 250 }).toBeGreaterThanOrEqual(1);
    const r = (await record())!;
    const ok = r.runs!.find((x) => x.outcome === 'Succeeded')!;
    expect(ok).toMatchObject({ statusCode: 203, startTime: expect.any(String), finishedTime: expect.any(String), durationMs: expect.any(Number) });
    expect(Date.parse(ok.scheduledTime) % 10_000).toBe(0);
    expect(Date.parse(ok.scheduledTime)).toBeGreaterThan(since);
    expect(r.lastSuccessfulTime).toBe(ok.scheduledTime);
    expect(Date.parse(r.nextScheduleTime!)).toBeGreaterThan(Date.parse(r.lastScheduleTime!));
    // Each tick at most once: the scheduled times in the history are distinct.
    const times = r.runs!.map((x) => x.scheduledTime);
    expect(new Set(times).size).toBe(times.length);

    const events = (await (await fetch(`${p.op.url}/v1/events?namespace=default&kind=Function&name=heartbeat`, { headers: { authorization: `Bearer ${p.storeToken}` } })).json()) as OperatorEventList;
    expect(events.events.map((e) => [e.reason, e.message])).toContainEqual(['CronTriggered', 'cron trigger beat: GET / answered 203']);
  });
});
