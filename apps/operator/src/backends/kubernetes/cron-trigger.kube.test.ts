/**
 * Cron triggers on the real control plane: two orrery-operator replicas (--backend kubernetes)
 * campaign for the Lease; only the leader runs the schedules. Its calls reach a stand-in router
 * (an HTTP server on this host, where the operator processes run too: what the router does with a
 * call is the local test's concern, backends/local/local-cron-trigger.int.test.ts). Checked on the
 * API server:
 * - the tick's run lands in status.triggers.cron, written through the status subresource by the
 *   field manager orrery-cron-trigger, beside the Function reconciler's own status (neither
 *   write removes the other's), and a CronTriggered Event is recorded;
 * - the leader is killed (no Lease release): the new leader goes on from the record, and no tick
 *   is called twice or left out.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testEnv } from '@orrery/kube-testenv';
import type { CronTriggerStatus, OrreryFunction } from '@orrery/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SpawnedServer, spawnServer, until } from '../../testing/spawn-server.ts';
import type { KubeObject } from './kube-client.ts';
import { operatorKubeSuite } from './testing/operator-kube-suite.ts';

const GV = 'orrery.dev/v1alpha1';
const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'bin', 'orrery-operator.mjs');
const suite = operatorKubeSuite();
const replicas: SpawnedServer[] = [];
let router: Server;
let routerUrl = '';
const calls: Array<{ url?: string; headers: IncomingHttpHeaders }> = [];

beforeAll(async () => {
  router = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      calls.push({ url: req.url, headers: req.headers });
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((r) => router.listen(0, '127.0.0.1', r));
  routerUrl = `http://127.0.0.1:${(router.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const r of replicas) await r.stop('SIGKILL');
  router?.closeAllConnections();
  await new Promise((r) => router?.close(r));
});

describe('cron triggers on Kubernetes (real API server, elected operator)', () => {
  it('the leader calls each tick once, records it in status beside the reconciler, and a new leader goes on from the record', { timeout: 120_000 }, async () => {
    const ns = await suite.freshNs('cron');
    const leaseNs = await suite.freshNs('cron-lease');
    const start = (identity: string) =>
      spawnServer(bin, [
        '--backend', 'kubernetes', '--kubeconfig', testEnv().adminKubeconfig, '--lease-namespace', leaseNs, '--namespace', ns,
        '--port', '0', '--identity', identity, '--lease-duration-seconds', '2', '--renew-deadline-seconds', '1', '--retry-period-seconds', '0.2',
        '--trigger-url', routerUrl, '--router-url', 'https://fn.example.com',
      ], { DATABASE_URL: '', POD_IP: '' });
    replicas.push(...(await Promise.all([start('cron-a'), start('cron-b')])));

    // A pool Function whose Environment does not exist: the reconciler writes its status, and no pod starts.
    await suite.client.apply({
      apiVersion: GV,
      kind: 'Function',
      metadata: { name: 'beat', namespace: ns },
      spec: {
        template: { source: { inline: 'export default () => "ok"' }, environment: 'absent', executor: 'pool', timeoutSeconds: 5 },
        triggers: { cron: [{ name: 'ten', schedule: '0,10,20,30,40,50 * * * * *', path: '/tick' }] },
      },
    });
    const read = async () => (await suite.client.get<KubeObject>(GV, 'Function', ns, 'beat')) as (KubeObject & OrreryFunction) | undefined;
    const record = async (): Promise<CronTriggerStatus | undefined> => (await read())?.status?.triggers?.cron?.[0];
    const succeeded = async () => ((await record())?.runs ?? []).filter((r) => r.outcome === 'Succeeded').map((r) => r.scheduledTime);

    await until(succeeded, (s) => s.length >= 1, 40_000, 'a first successful run');
    const fn = (await read())!;
    const first = fn.status!.triggers!.cron![0]!;
    expect(first.runs!.find((r) => r.outcome === 'Succeeded')).toMatchObject({ statusCode: 202, startTime: expect.any(String), durationMs: expect.any(Number) });
    expect(calls[0]).toMatchObject({ url: `/${ns}/beat/tick` });
    expect(calls[0]!.headers).toMatchObject({ 'orrery-trigger': 'cron/ten', 'orrery-scheduled-time': first.runs!.find((r) => r.outcome === 'Succeeded')!.scheduledTime });
    // The reconciler's status (latestCreatedRevision, conditions) and the trigger's record side by side,
    // each under its own field manager.
    await until(read, (f) => Boolean(f?.status?.latestCreatedRevision && f.status.triggers?.cron?.length), 20_000, 'both parts of the status');
    const managers = ((await read())!.metadata.managedFields ?? []) as Array<{ manager: string; subresource?: string; fieldsV1?: { 'f:status'?: Record<string, unknown> } }>;
    const statusOf = (m: string) => managers.find((f) => f.manager === m && f.subresource === 'status')?.fieldsV1?.['f:status'] ?? {};
    expect(Object.keys(statusOf('orrery-cron-trigger'))).toEqual(['f:triggers']);
    expect(statusOf('orrery-operator')).toHaveProperty('f:latestCreatedRevision');
    expect(statusOf('orrery-operator')).not.toHaveProperty('f:triggers');
    const events = await suite.client.list<KubeObject>('v1', 'Event', ns);
    expect(events.items.some((e) => e.reason === 'CronTriggered' && String(e.message).includes('cron trigger ten: POST /tick answered 202'))).toBe(true);

    // Kill the leader without releasing the Lease; the other replica takes over after it expires.
    const health = async (r: SpawnedServer) => ((await (await fetch(`${r.url}/healthz`)).json()) as { leader: boolean }).leader;
    const leader = (await health(replicas[0]!)) ? replicas[0]! : replicas[1]!;
    const other = leader === replicas[0] ? replicas[1]! : replicas[0]!;
    const before = (await succeeded()).length;
    await leader.stop('SIGKILL');
    await until(() => health(other), Boolean, 20_000, 'the other replica leads');
    const after = await until(succeeded, (s) => s.length >= before + 2, 40_000, 'two more runs under the new leader');

    // Never twice: each scheduled time was called at most once.
    const called = calls.map((c) => String(c.headers['orrery-scheduled-time']));
    expect(new Set(called).size).toBe(called.length);
    // Never left out: from the first to the last run, every 10-second tick is in the history (run,
    // or claimed by the killed leader just before it died) or counted as missed.
    const r = (await record())!;
    const times = r.runs!.map((x) => Date.parse(x.scheduledTime));
    const span = (Math.max(...times) - Math.min(...times)) / 10_000 + 1;
    expect(times.length + (r.missedTicks ?? 0)).toBeGreaterThanOrEqual(span);
    expect(r.missedTicks ?? 0).toBe(0);
    expect(after.length).toBeGreaterThanOrEqual(before + 2);
  });
});
