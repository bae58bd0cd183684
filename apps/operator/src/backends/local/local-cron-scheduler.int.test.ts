/**
 * The cron scheduler (trigger/cron/cron-scheduler.ts) over the local backend's trigger status
 * (local-trigger-status.ts) on a real resource store (embedded database) with fake clocks, calling a
 * real HTTP server on loopback that stands in for the router (the test with real routers and workers
 * is local-cron-trigger.int.test.ts):
 * - a tick calls <router>/<namespace>/<function><path> with the trigger's method, body and
 *   headers plus Orrery-Trigger and Orrery-Scheduled-Time, and its run lands in status;
 * - two schedulers sharing one store, passing at the same moments, call each tick exactly once;
 * - a failover: the first scheduler stops mid-way (after a claim, before the call), the second
 *   neither repeats a claimed tick nor skips the one that came during the failover;
 * - Forbid skips a tick while a call runs; suspend and removal.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from '@orrery/db';
import type { CronTriggerStatus, OrreryFunction } from '@orrery/spec';
import { createLocalStore, type ResourceStore } from '@orrery/store';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EventRecorder } from '../../events/event-recorder.ts';
import { CronScheduler } from '../../trigger/cron/cron-scheduler.ts';
import { RouterTriggerInvoker } from '../../trigger/router-trigger-invoker.ts';
import type { TriggerInvoker } from '../../trigger/trigger-invoker.ts';
import { LocalFunctionBackend } from './local-function-backend.ts';
import { LocalTriggerStatus } from './local-trigger-status.ts';

const NS = 'cron';
let conn: ReturnType<typeof connect>;
let store: ResourceStore;
let server: Server;
let routerUrl = '';
interface Call {
  method?: string;
  url?: string;
  headers: IncomingHttpHeaders;
  body: string;
}
const calls: Call[] = [];
/** Answers held back by the test (a slow Function), released by calling them. */
const held: Array<() => void> = [];
let holdNext = 0;
/** Only calls under this path are held: a call a previous test's scheduler sent late must not take the hold. */
let holdOnly = '';
const recorded: Array<{ name: string; reason: string; message: string }> = [];
const events = new EventRecorder({
  write: async (target, event) => {
    recorded.push({ name: target.name, reason: event.reason, message: event.message });
    return 1;
  },
});
const schedulers: CronScheduler[] = [];

beforeAll(async () => {
  conn = connect({ url: '' });
  store = await createLocalStore(conn);
  await store.apply({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Environment', metadata: { name: 'nodejs', namespace: NS }, spec: { image: 'orrery/runtime-node:latest' } });
  server = createServer((req, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      calls.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString() });
      const answer = () => res.writeHead(req.url?.endsWith('/fail') ? 500 : 200).end('ok');
      if (holdNext > 0 && req.url?.startsWith(holdOnly)) {
        holdNext--;
        held.push(answer);
      } else answer();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  routerUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);
afterEach(async () => {
  for (const s of schedulers.splice(0)) await s.stop(0);
  for (const h of held.splice(0)) h();
  holdNext = 0;
  holdOnly = '';
  calls.length = 0;
  recorded.length = 0;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  await store?.close();
  await conn?.close();
});

/** A clock the test moves. */
function clock(iso: string) {
  let t = Date.parse(iso);
  return { now: () => new Date(t), set: (to: string) => (t = Date.parse(to)) };
}

async function scheduler(now: () => Date, invoker: TriggerInvoker = new RouterTriggerInvoker({ routerUrl: () => routerUrl, now })): Promise<CronScheduler> {
  const s = new CronScheduler({ store, status: new LocalTriggerStatus(store), invoker, events, now, intervalMs: 0 });
  schedulers.push(s);
  await s.start().ready;
  return s;
}

async function applyFunction(name: string, cron: Array<Record<string, unknown>>): Promise<void> {
  await store.apply({
    apiVersion: 'orrery.dev/v1alpha1',
    kind: 'Function',
    metadata: { name, namespace: NS },
    spec: { template: { environment: 'nodejs', source: { inline: 'export default () => "ok"' }, timeoutSeconds: 10 }, triggers: { cron } },
  });
}

const entry = async (fn: string, trigger: string): Promise<CronTriggerStatus | undefined> =>
  ((await store.get('Function', NS, fn)) as OrreryFunction | undefined)?.status?.triggers?.cron?.find((e) => e.name === trigger);

/** Waits until every scheduler's mirror shows the store's latest copy of `fn`, then passes each. */
async function passAll(fn: string, ...ss: CronScheduler[]): Promise<void> {
  const rv = ((await store.get('Function', NS, fn)) as OrreryFunction).metadata.resourceVersion;
  await expect.poll(() => ss.every((s) => (s as unknown as { functions: Map<string, OrreryFunction> }).functions.get(`${NS}/${fn}`)?.metadata.resourceVersion === rv), { timeout: 5000, interval: 10 }).toBe(true);
  await Promise.all(ss.map((s) => s.pass()));
}

const scheduledTimes = (fn: string) => calls.filter((c) => c.url?.startsWith(`/${NS}/${fn}/`)).map((c) => c.headers['orrery-scheduled-time']);

describe('cron scheduler (real store, fake clock, a stand-in router)', () => {
  it('a tick calls the Function through the router with its headers, and the run lands in status', { timeout: 30_000 }, async () => {
    const c = clock('2026-01-01T10:03:00Z');
    await applyFunction('report', [
      { name: 'every5', schedule: '*/5 * * * *', method: 'PUT', path: '/run?kind=daily', body: '{"a":1}', headers: [{ name: 'Content-Type', value: 'application/json' }] },
    ]);
    const s = await scheduler(c.now);
    await passAll('report', s);
    expect(await entry('report', 'every5')).toMatchObject({ since: '2026-01-01T10:03:00Z', nextScheduleTime: '2026-01-01T10:05:00Z' });
    expect(calls).toEqual([]);

    c.set('2026-01-01T10:05:00.250Z');
    await passAll('report', s);
    await s.idle();
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ method: 'PUT', url: `/${NS}/report/run?kind=daily`, body: '{"a":1}' });
    expect(calls[0]!.headers).toMatchObject({ 'orrery-trigger': 'cron/every5', 'orrery-scheduled-time': '2026-01-01T10:05:00Z', 'content-type': 'application/json' });
    expect(await entry('report', 'every5')).toMatchObject({
      lastScheduleTime: '2026-01-01T10:05:00Z',
      lastSuccessfulTime: '2026-01-01T10:05:00Z',
      nextScheduleTime: '2026-01-01T10:10:00Z',
      runs: [{ scheduledTime: '2026-01-01T10:05:00Z', outcome: 'Succeeded', statusCode: 200, startTime: '2026-01-01T10:05:00.250Z' }],
    });
    await events.flush();
    expect(recorded).toContainEqual({ name: 'report', reason: 'CronTriggered', message: 'cron trigger every5: PUT /run?kind=daily answered 200' });

    // The same moment again: the tick is claimed, nothing is called twice.
    await passAll('report', s);
    await s.idle();
    expect(calls).toHaveLength(1);
  });

  it('two schedulers on one store, passing at the same moments: every tick is called exactly once', { timeout: 60_000 }, async () => {
    const c = clock('2026-01-02T00:00:30Z');
    await applyFunction('pair', [{ name: 'minutely', schedule: '* * * * *' }]);
    const a = await scheduler(c.now);
    const b = await scheduler(c.now);
    await passAll('pair', a, b);
    for (let minute = 1; minute <= 8; minute++) {
      c.set(`2026-01-02T00:0${minute}:00.100Z`);
      await passAll('pair', a, b);
      await Promise.all([a.idle(), b.idle()]);
    }
    expect(scheduledTimes('pair')).toEqual(Array.from({ length: 8 }, (_, i) => `2026-01-02T00:0${i + 1}:00Z`));
    const record = await entry('pair', 'minutely');
    expect(record?.runs?.map((r) => r.outcome)).toEqual(Array(8).fill('Succeeded'));
    expect(record?.missedTicks).toBe(0);
  });

  it('failover after a claim: the new leader never runs the claimed tick, and runs the one that came meanwhile', { timeout: 30_000 }, async () => {
    const c = clock('2026-01-03T10:00:30Z');
    await applyFunction('takeover', [{ name: 'five', schedule: '*/5 * * * *', startingDeadlineSeconds: 120 }]);
    // The old leader: its calls go to a router, until it "dies" right after claiming 10:10.
    let dead = false;
    const real = new RouterTriggerInvoker({ routerUrl: () => routerUrl, now: c.now });
    const never = (signal?: AbortSignal) => new Promise<never>((_, reject) => signal?.addEventListener('abort', () => reject(new Error('aborted'))));
    const old = await scheduler(c.now, { invoke: (call) => (dead ? never(call.signal) : real.invoke(call)) });
    await passAll('takeover', old);
    c.set('2026-01-03T10:05:00Z');
    await passAll('takeover', old);
    await old.idle();
    dead = true;
    c.set('2026-01-03T10:10:00Z');
    await passAll('takeover', old); // claims 10:10; its call never goes out
    expect(await entry('takeover', 'five')).toMatchObject({ lastScheduleTime: '2026-01-03T10:10:00Z', runs: [{ outcome: 'Succeeded' }, { scheduledTime: '2026-01-03T10:10:00Z', outcome: 'Running' }] });

    // The new leader takes over at 10:15:40 (Lease expiry and so on).
    c.set('2026-01-03T10:15:40Z');
    const next = await scheduler(c.now);
    await passAll('takeover', next);
    await next.idle();
    expect(scheduledTimes('takeover')).toEqual(['2026-01-03T10:05:00Z', '2026-01-03T10:15:00Z']);
    expect(await entry('takeover', 'five')).toMatchObject({ lastScheduleTime: '2026-01-03T10:15:00Z', missedTicks: 0 });

    // Once the lost call's timeout (2 × 10 s + 10 s) has passed, its run is marked Failed, not Running forever.
    c.set('2026-01-03T10:16:00Z');
    await passAll('takeover', next);
    const runs = (await entry('takeover', 'five'))!.runs!;
    expect(runs.find((r) => r.scheduledTime === '2026-01-03T10:10:00Z')).toMatchObject({ outcome: 'Failed', message: expect.stringMatching(/failover/) });
    expect(runs.find((r) => r.scheduledTime === '2026-01-03T10:15:00Z')).toMatchObject({ outcome: 'Succeeded' });
  });

  it('failover between ticks: a tick inside startingDeadlineSeconds is caught up once; one past it is Missed', { timeout: 30_000 }, async () => {
    const c = clock('2026-01-04T10:00:30Z');
    await applyFunction('catch-up', [
      { name: 'within', schedule: '*/5 * * * *', startingDeadlineSeconds: 60 },
      { name: 'past', schedule: '*/5 * * * *', startingDeadlineSeconds: 10 },
    ]);
    const first = await scheduler(c.now);
    await passAll('catch-up', first);
    c.set('2026-01-04T10:05:00Z');
    await passAll('catch-up', first);
    await first.stop(1000);
    // Nobody leads at 10:10; the next leader arrives 30 s later.
    c.set('2026-01-04T10:10:30Z');
    const second = await scheduler(c.now);
    await passAll('catch-up', second);
    await second.idle();
    const byTrigger = (t: string) => calls.filter((x) => x.headers['orrery-trigger'] === `cron/${t}`).map((x) => x.headers['orrery-scheduled-time']);
    expect(byTrigger('within')).toEqual(['2026-01-04T10:05:00Z', '2026-01-04T10:10:00Z']);
    expect(byTrigger('past')).toEqual(['2026-01-04T10:05:00Z']);
    expect(await entry('catch-up', 'past')).toMatchObject({ lastScheduleTime: '2026-01-04T10:10:00Z', missedTicks: 1 });
    expect((await entry('catch-up', 'past'))!.runs!.at(-1)).toMatchObject({ outcome: 'Missed', scheduledTime: '2026-01-04T10:10:00Z' });
    await events.flush();
    expect(recorded.some((e) => e.reason === 'CronMissed' && e.message.includes('cron trigger past missed 1 tick(s) up to 2026-01-04T10:10:00Z'))).toBe(true);
  });

  it('Forbid skips a tick while the previous call runs; suspend calls nothing; a removed trigger leaves status', { timeout: 30_000 }, async () => {
    const c = clock('2026-01-05T10:00:30Z');
    await applyFunction('slow', [
      { name: 'forbid', schedule: '* * * * *', concurrencyPolicy: 'Forbid', path: '/fail' },
      { name: 'paused', schedule: '* * * * *', suspend: true },
    ]);
    const s = await scheduler(c.now);
    await passAll('slow', s);
    holdOnly = `/${NS}/slow/`;
    holdNext = 1;
    c.set('2026-01-05T10:01:00Z');
    await passAll('slow', s);
    await expect.poll(() => held.length).toBe(1);
    c.set('2026-01-05T10:02:00Z');
    await passAll('slow', s);
    expect((await entry('slow', 'forbid'))!.runs!.map((r) => r.outcome)).toEqual(['Running', 'Skipped']);
    held.shift()!();
    await s.idle();
    const forbid = (await entry('slow', 'forbid'))!;
    expect(forbid.runs!.map((r) => [r.scheduledTime, r.outcome, r.statusCode])).toEqual([
      ['2026-01-05T10:01:00Z', 'Failed', 500],
      ['2026-01-05T10:02:00Z', 'Skipped', undefined],
    ]);
    expect(forbid.missedTicks).toBe(1);
    expect(forbid.lastSuccessfulTime).toBeUndefined();
    expect(await entry('slow', 'paused')).toMatchObject({ suspended: true });
    expect(calls.filter((x) => x.headers['orrery-trigger'] === 'cron/paused')).toEqual([]);

    await applyFunction('slow', [{ name: 'paused', schedule: '* * * * *', suspend: true }]);
    await passAll('slow', s);
    expect(((await store.get('Function', NS, 'slow')) as OrreryFunction).status?.triggers?.cron?.map((e) => e.name)).toEqual(['paused']);
  });
});

describe('the Function reconciler and the trigger record share status', () => {
  it('a status write computed from an older copy keeps status.triggers written meanwhile', { timeout: 30_000 }, async () => {
    await applyFunction('shared', [{ name: 'keep', schedule: '* * * * *' }]);
    const stale = (await store.get('Function', NS, 'shared')) as OrreryFunction;
    const triggers = new LocalTriggerStatus(store);
    expect(await triggers.write((await triggers.read(NS, 'shared'))!, 'cron', [{ name: 'keep', since: '2026-01-01T00:00:00Z', lastScheduleTime: '2026-01-01T00:01:00Z' }])).toBe('written');
    // A write from the copy read before the trigger's: a conflict, so not a claim.
    expect(await triggers.write(stale, 'cron', [])).toBe('conflict');
    // The reconciler's write (local-function-backend.ts) from the same older copy.
    await new LocalFunctionBackend(store).writeStatus(stale, { observedGeneration: 1, url: 'http://router/cron/shared' });
    const now = (await store.get('Function', NS, 'shared')) as OrreryFunction;
    expect(now.status).toMatchObject({ observedGeneration: 1, url: 'http://router/cron/shared', triggers: { cron: [{ name: 'keep', lastScheduleTime: '2026-01-01T00:01:00Z' }] } });
  });
});
