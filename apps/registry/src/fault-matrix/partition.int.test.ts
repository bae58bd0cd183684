/**
 * The seed's FAULT-002 as a real network partition, and the candidate-set check over a real
 * history: 5 etcd members and two registry processes, each in a network namespace of its own
 * (root; `ip netns`, veths, iptables inside the namespaces). A partition puts the leader, one
 * follower and registry `rmin` on one side, the three other members and registry `rmaj` on the
 * other; packets between the sides are dropped, the test process on the host reaches everyone.
 * Without root this file fails in beforeAll with the reason — it does not skip.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdCluster, preferredEtcdBin, waitFor } from '@orrery/etcdcluster';
import type { Instance } from '../model/instance.ts';
import { call, regBody } from '../testing/fixture.ts';
import { checkLinearizable, type Operation } from '../lincheck/wgl.ts';
import { prepareHistory } from '../lincheck/prepare-history.ts';
import { candidateSetModel, instanceEntry, selectorParam, type SelectorTerm, type SetInput, type SetOutput } from '../lincheck/candidate-set-model.ts';
import { startNetnsRegistry, type NetnsRegistry } from './netns-registry.ts';

const SERVICE = 'company.test.order.order-center.api';
let cluster: EtcdCluster;
let rmaj: NetnsRegistry;
let rmin: NetnsRegistry;

beforeAll(async () => {
  cluster = await EtcdCluster.start({ size: 5, network: 'netns', etcdBin: preferredEtcdBin() });
  // Both registries know every member, as in production; only the network decides whom they reach.
  const extra = ['--request-timeout', '2s'];
  [rmaj, rmin] = await Promise.all([
    startNetnsRegistry(cluster.network!, 'rmaj', cluster.endpoints(), extra),
    startNetnsRegistry(cluster.network!, 'rmin', cluster.endpoints(), extra),
  ]);
}, 90_000);

afterAll(async () => {
  await cluster?.network?.heal();
  await Promise.all([rmaj?.stop(), rmin?.stop()]);
  await cluster?.close();
}, 60_000);

const register = (r: NetnsRegistry, ns: string, id: string, labels: Record<string, string> = {}) =>
  call(r.httpUrl, 'POST', '/api/v1/registry/register', regBody(ns, id, { labels, leaseTtlSeconds: 300 }), {}, 5000);
const ids = (q: { body: { data: { instances: Instance[] } } }) => q.body.data.instances.map((i) => i.instanceId).sort();

/** Cuts the current leader and one follower (with rmin) off from the other three (with rmaj). */
async function cutLeaderOff(): Promise<{ minority: string[]; majority: string[] }> {
  const leader = await cluster.leader();
  const minority = [leader, cluster.members.find((m) => m.name !== leader)!.name];
  const majority = cluster.members.map((m) => m.name).filter((n) => !minority.includes(n));
  await cluster.network!.partition([[...minority, 'rmin'], [...majority, 'rmaj']]);
  return { minority, majority };
}

/** Waits until the majority's members agree on a leader among themselves (the minority may still believe in the old one). */
function majorityLeader(majority: string[]): Promise<string> {
  return waitFor('a leader among the majority', 20_000, async () => {
    const statuses = await Promise.all(majority.map((n) => cluster.status(n)));
    const leaders = new Set(statuses.map((s) => s?.leader));
    const [id] = [...leaders];
    const leader = statuses.find((s) => s?.id === id);
    return leaders.size === 1 && leader ? leader.name : undefined;
  });
}

describe('FAULT-002: a minority partition', () => {
  it('the majority elects and serves; the minority registry refuses writes and reads with 503; healed, it converges', { timeout: 60_000 }, async () => {
    const ns = 'fault2';
    expect((await register(rmaj, ns, 'before')).body.code).toBe('ok');
    const { majority } = await cutLeaderOff();
    try {
      await majorityLeader(majority);
      await waitFor('a write through the majority registry', 20_000, async () => ((await register(rmaj, ns, 'majority').catch(() => undefined))?.body.code === 'ok' ? true : undefined));
      // A query may be refused for a moment while the registry moves its watch off a cut-off member.
      const majorityView = await waitFor('a query through the majority registry', 20_000, async () => {
        const q = await call(rmaj.httpUrl, 'GET', `/api/v1/registry/instances?namespace=${ns}`).catch(() => undefined);
        return q?.body.code === 'ok' ? q : undefined;
      });
      expect(ids(majorityView)).toEqual(['before', 'majority']);

      // The minority cannot commit: its writes time out inside etcd and the registry answers
      // 503 propose_failed ("did not answer in time; retry") — never ok. (etcd says "no leader"
      // only to clients that ask for a leader-required context, which the registry does not.)
      const w = await register(rmin, ns, 'minority');
      const d = await call(rmin.httpUrl, 'POST', '/api/v1/registry/deregister', { namespace: ns, service: SERVICE, instanceId: 'before' }, {}, 5000);
      // A linearizable read needs a quorum too: the minority cannot answer a query, not even an old view.
      const q = await call(rmin.httpUrl, 'GET', `/api/v1/registry/instances?namespace=${ns}`, undefined, {}, 8000);
      expect([w.status, w.body.code]).toEqual([503, 'propose_failed']);
      expect([d.status, d.body.code]).toEqual([503, 'propose_failed']);
      expect([q.status, q.body.code]).toEqual([503, 'read_failed']);
      // Meanwhile the majority keeps serving (a write that times out on a busy machine is sent again: same instance, same content).
      await waitFor('a write through the majority registry during the partition', 20_000, async () => ((await register(rmaj, ns, 'during').catch(() => undefined))?.body.code === 'ok' ? true : undefined));
    } finally {
      await cluster.network!.heal();
    }
    // Healed: the minority registry converges on the majority's writes. The refused register
    // may still have reached a majority member after healing (its answer was lost, not a
    // refusal), so it may or may not be there; the refused deregister of \`before\` likewise.
    const healed = await waitFor('the minority registry to answer again', 30_000, async () => {
      const q = await call(rmin.httpUrl, 'GET', `/api/v1/registry/instances?namespace=${ns}`).catch(() => undefined);
      return q?.body.code === 'ok' ? q : undefined;
    });
    expect(ids(healed).filter((x) => x !== 'minority' && x !== 'before')).toEqual(['during', 'majority']);
    await waitFor('writes through the healed minority registry', 20_000, async () => ((await register(rmin, ns, 'after-heal').catch(() => undefined))?.body.code === 'ok' ? true : undefined));
  });
});

describe('candidate sets (CONS, whole answers)', () => {
  it('a concurrent history through both registries, across a partition and its healing, is linearizable as whole query answers', { timeout: 90_000 }, async () => {
    const ns = 'candidates';
    const t0 = performance.now();
    const history: Array<Operation<SetInput, SetOutput>> = [];
    let stop = false;
    const instanceIds = ['p', 'q', 'r', 's'];
    const groups = ['a', 'b'];
    let n = 0;
    // Each phase (the cut until a new leader, the majority's traffic, after healing) may add at
    // most PHASE_OPS operations: unpaced clients make the history as long as the phase (a slow
    // election once made one of 483, beyond what the checker's step budget can search), and the
    // checker's work grows with the history, not with what the phase proves.
    const PHASE_OPS = 60;
    let issued = 0;
    let allowance = PHASE_OPS;
    const nextPhase = () => void (allowance = issued + PHASE_OPS);
    const runClient = async (c: number) => {
      const r = c % 2 ? rmaj : rmin;
      for (let i = 0; !stop; i++) {
        while (!stop && issued >= allowance) await new Promise((res) => setTimeout(res, 20));
        if (stop) break;
        issued++;
        const roll = (c * 7 + i * 13) % 20;
        const id = instanceIds[(c + i) % instanceIds.length]!;
        const g = groups[(c + i) % 2]!;
        let input: SetInput;
        if (roll < 6) input = { kind: 'register', id, labels: { grp: g, v: String(n++) } };
        else if (roll < 8) input = { kind: 'deregister', id };
        else if (roll < 10) input = { kind: 'heartbeat', id };
        else {
          const selector: SelectorTerm[] = roll < 14 ? [] : roll < 18 ? [{ key: 'grp', op: '=', value: g }] : [{ key: 'grp', op: '!=', value: g }];
          input = { kind: 'query', selector };
        }
        const call0 = performance.now() - t0;
        let output: SetOutput;
        try {
          output = await perform(r.httpUrl, ns, input);
        } catch {
          output = { kind: 'unknown' };
        }
        history.push({ call: call0, ret: performance.now() - t0, input, output });
      }
    };
    const answered = () => history.filter((h) => h.output.kind !== 'unknown').length;
    const clients = [0, 1, 2, 3].map((c) => runClient(c));
    await waitFor('traffic', 20_000, async () => (answered() > 40 ? true : undefined));
    nextPhase();
    const { majority } = await cutLeaderOff();
    try {
      await majorityLeader(majority);
      nextPhase();
      const m = answered();
      await waitFor('traffic on the majority side', 30_000, async () => (answered() > m + 20 ? true : undefined));
    } finally {
      await cluster.network!.heal();
    }
    await cluster.waitForLeader(30_000);
    nextPhase();
    const k = answered();
    await waitFor('traffic after healing', 30_000, async () => (answered() > k + 20 ? true : undefined));
    stop = true;
    await Promise.all(clients);
    // Queries select by label over the whole namespace, so the history is not split by
    // instance: each answer must be the whole candidate set at one point of one total order.
    const prepared = prepareHistory(history);
    const verdict = checkLinearizable(candidateSetModel, prepared);
    expect(verdict.timedOut, `${prepared.length} ops, ${verdict.steps} steps`).toBeFalsy();
    const dump = () => prepared.map((o, i) => `${i} ${o.call.toFixed(1)}-${o.ret.toFixed(1)} ${JSON.stringify(o.input)} → ${JSON.stringify(o.output)}`).join('\n');
    expect(verdict.linearizable, verdict.linearizable ? '' : `prefix ${verdict.longestPrefix?.join(',')} blocked at ${verdict.blockedAt}\n${dump()}`).toBe(true);
    // The partition really refused something, and the answers were not all trivial.
    expect(history.some((h) => h.output.kind === 'unknown')).toBe(true);
    expect(history.filter((h) => h.output.kind === 'instances' && h.output.entries.length > 1).length).toBeGreaterThan(5);
  });
});

/** One operation against a registry; anything but a definite answer is `unknown`. */
async function perform(base: string, ns: string, input: SetInput): Promise<SetOutput> {
  const timeout = 5000;
  const classify = (res: { body: { code: string } }): SetOutput =>
    res.body.code === 'ok' ? { kind: 'ok' } : res.body.code === 'not_found' ? { kind: 'not_found' } : { kind: 'unknown' };
  const id = (x: string) => ({ namespace: ns, service: SERVICE, instanceId: x });
  switch (input.kind) {
    case 'register':
      return classify(await call(base, 'POST', '/api/v1/registry/register', regBody(ns, input.id, { labels: input.labels, leaseTtlSeconds: 300 }), {}, timeout));
    case 'deregister':
      return classify(await call(base, 'POST', '/api/v1/registry/deregister', id(input.id), {}, timeout));
    case 'heartbeat':
      return classify(await call(base, 'POST', '/api/v1/registry/heartbeat', id(input.id), {}, timeout));
    case 'query': {
      const sel = input.selector.length ? `&selector=${encodeURIComponent(selectorParam(input.selector))}` : '';
      const q = await call(base, 'GET', `/api/v1/registry/instances?namespace=${ns}&service=${SERVICE}${sel}`, undefined, {}, timeout);
      if (q.body.code !== 'ok') return { kind: 'unknown' };
      return { kind: 'instances', entries: q.body.data.instances.map((i: Instance) => instanceEntry(i.instanceId, i.labels)).sort() };
    }
  }
}
