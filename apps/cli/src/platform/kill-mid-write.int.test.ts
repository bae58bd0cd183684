/**
 * Issue 22's last fencing requirement, through the whole local platform: "a worker killed
 * mid-write and its key moved shows no lost and no stale write" (docs/state.md "Fencing").
 *
 * `orrery up` runs as a real process (free ports, a temp data dir, its own Redis key prefix) with
 * the memory state driver — `orrery up`'s default, and what the other platform tests use;
 * ORRERY_KILL_MID_WRITE_STATE_DRIVER=postgres runs the same test with `--state-driver postgres`
 * (on $DATABASE_URL, else `orrery up`'s default database).
 * A counter Function is deployed through the store: deploy executor, exactly two workers
 * (minScale = maxScale = 2), `containerConcurrency: 1`, `targetBurstCapacity: -1` (the router's
 * capacity-aware admission always in the path), sticky on the X-Counter-Key header,
 * `state.fencing: true`. Its handler runs `ctx.state.update(key, n => n + 1)` and sleeps between
 * the read and the CAS (300 ms, or `?pause=` ms), logs a marker line inside that pause, and
 * answers the new value and version, its pid and whether the router marked the request
 * `X-Orrery-Key-Moved: 1`; a FencedError it answers as 409 `fenced`. One client sends every
 * increment for one key through router-1, one at a time, except that B1..B3 overlap A.
 *
 * 1. Three increments find the key's owner P1.
 * 2. Increment A, with a 3 s pause, is sent; once P1's log shows A inside its pause (read done,
 *    CAS not yet), P1 is frozen with SIGSTOP. The next increments are answered by the other
 *    worker P2, the first marked "key moved" (P2 claims a new fence), and count on from P1's last
 *    value. P1 is resumed (SIGCONT): A's late CAS carries P1's old fence and is refused — A
 *    answers 409 `fenced`, statesvc counts exactly one `cas` refused as fenced, and the stored
 *    value and version are what they were before the resume. Then P1 is SIGKILLed and
 *    increments go on.
 * 3. Twice, once two workers serve again (the operator restarts a killed one), an increment
 *    with a 3 s pause is sent to the key's owner and, inside its pause, that owner is SIGKILLed.
 *    E has no body: router-1 may send it again (below), so it either fails or is answered once by
 *    the other worker as a moved key. F has a body, which the router never sends twice: it fails
 *    (502). Each time the key moves to the other worker (marked "key moved") and increments go on.
 * 4. The stored counter (read from statesvc with the function's state token) must account for
 *    every acknowledged increment: acknowledged values and versions strictly increase, the stored
 *    value and version are those of the last acknowledgement, statesvc applied exactly as many
 *    CAS writes as the stored value, which is the number of acknowledgements plus the increments
 *    applied without one — and those can only be writes in flight when their worker was killed
 *    and never acknowledged (F, or E when it failed), showing as one skipped value right after
 *    the kill (A was refused; none is expected, the kills land before the CAS).
 *
 * How the platform moves a key (measured on a loaded 2-core machine, 8 runs):
 * - Owner stuck with a request in flight (the frozen P1 holds A): with `containerConcurrency: 1`
 *   its one slot is taken, so the router admits the key's next request to the next HRW rank at
 *   once (a teleport, hence `X-Orrery-Key-Moved: 1`). The first increment after the SIGSTOP is
 *   answered by P2 in one handler run (0.32–0.50 s after the SIGSTOP).
 * - Owner SIGKILLed: the next request dials the dead address (still listed for a moment: the
 *   operator rewrites the endpoints file, routers poll it every 200 ms, and the registry keeps
 *   the instance until the restarted worker re-registers under the same id), is refused, the
 *   address is quarantined for 30 s and the request retried on the other worker: one handler
 *   run (0.32–0.47 s after the kill). The operator restarts the killed worker after its 0.5 s
 *   backoff.
 * - NOT a move: a frozen worker with no concurrency limit (`containerConcurrency: 0`) keeps its
 *   keys on the local platform for as long as it is frozen (measured: 45 s, until SIGCONT, every
 *   request of its key waiting on it). Its registry lease expires after ~25–30 s, but the
 *   router routes to the union of the registry and the operator's endpoints file, which still
 *   lists the worker; the local backend has no liveness check for workers, and an upstream
 *   timeout (504) does not quarantine an endpoint. That is why this Function caps concurrency.
 *
 * Seen on the way (E): a bodiless request whose worker died after receiving it, on a reused
 * keep-alive connection, was sent again by the router (`http1-upstream.ts` treated the reset like
 * a connection the worker closed while idle), to the other worker — even a POST. A worker killed
 * after its write and before its answer would have had the increment applied twice; the router
 * now sends such a request again only for idempotent methods, so E fails with 502 (the test
 * still accepts either outcome). And a request sent in the instant a worker is being
 * SIGKILLed (before its sockets close) can be accepted by its listening socket and then reset:
 * 502 `upstream_error`, not retried. So after each SIGKILL the test waits until the operator has
 * reaped the process before it sends the next increment.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitUntilHalted } from '@orrery/etcdcluster';
import type { OrreryFunction } from '@orrery/spec';
import { createHttpStore, type ResourceStore } from '@orrery/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OrreryUp, startOrreryUp } from '../testing/orrery-up-process.ts';
import { removeRedisKeys } from '../testing/redis-key-cleanup.ts';
import { until as untilOrTimeout } from '../testing/until.ts';
import { stateTokenOf } from '../testing/worker-state-token.ts';
import type { PlatformInfo } from './platform-file.ts';
import { procInfo, statFields } from './processes.ts';

const SUFFIX = randomBytes(3).toString('hex');
const FN = `kill-mid-write-${SUFFIX}`;
const REVISION = `default/${FN}-00001`;
const KEY = 'counter-1';
/** Between the read and the CAS of every increment, unless the request says otherwise. */
const PAUSE_MS = 300;
/** The pause of the increments a worker is frozen or killed in (A, E, F): long enough to catch them in it. */
const STALL_MS = 3_000;
const DRIVER = process.env.ORRERY_KILL_MID_WRITE_STATE_DRIVER === 'postgres' ? 'postgres' : 'memory';
const REDIS_PREFIX = `orrery-kmw-${SUFFIX}`;

// Plain strings (no template literals) so that the test's own `${}` never reaches the handler.
const HANDLER = `
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// Before the runtime's "listening" line: the test maps this pid to the address that follows.
console.log('kmw-boot pid=' + process.pid);
export default async (request, ctx) => {
  const url = new URL(request.url);
  const rid = url.searchParams.get('rid') ?? '-';
  const key = request.headers.get('x-counter-key');
  if (!key) return Response.json({ error: 'send X-Counter-Key' }, { status: 400 });
  const moved = request.headers.get('x-orrery-key-moved') === '1';
  const pause = Number(url.searchParams.get('pause') ?? ${PAUSE_MS});
  let read;
  try {
    const { value, version } = await ctx.state.update(key, async (n) => {
      read = n ?? 0;
      console.log('kmw-pause rid=' + rid + ' pid=' + process.pid + ' read=' + read);
      await sleep(pause);
      return read + 1;
    }, { retries: 5 });
    console.log('kmw-wrote rid=' + rid + ' pid=' + process.pid + ' value=' + value + ' version=' + version);
    return Response.json({ rid, value, version, read, moved, pid: process.pid });
  } catch (err) {
    if (err?.code !== 'fenced') throw err;
    console.log('kmw-fenced rid=' + rid + ' pid=' + process.pid + ' fence=' + err.fence);
    return Response.json({ rid, code: 'fenced', fence: err.fence, read, moved, pid: process.pid, error: err.message }, { status: 409 });
  }
};
`;

const manifest = {
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Function',
  metadata: { name: FN, namespace: 'default' },
  spec: {
    template: {
      source: { inline: HANDLER },
      executor: 'deploy',
      containerConcurrency: 1,
      timeoutSeconds: 30,
      autoscaling: { minScale: 2, maxScale: 2, targetBurstCapacity: -1 },
    },
    state: { keyspace: FN, maxKeys: 10, maxValueBytes: 256, sticky: { source: 'header', name: 'X-Counter-Key' }, fencing: true },
  },
} as unknown as OrreryFunction;

const base = mkdtempSync(join(tmpdir(), 'orrery-kill-mid-write-'));
const dataDir = join(base, '.orrery');
const workerLogDir = join(dataDir, 'logs', 'default', FN);

let up: OrreryUp | undefined;
let info: PlatformInfo;
let store: ResourceStore | undefined;
let stateToken = '';
/** Workers this test froze and has not resumed: resumed in afterAll, or their drain never ends. */
const frozen = new Set<number>();

const t0 = Date.now();
const journal: string[] = [];
const note = (line: string) => journal.push(`+${((Date.now() - t0) / 1000).toFixed(2)}s ${line}`);

interface Answer {
  rid: string;
  status: number;
  body: Record<string, unknown>;
  /** When the answer came, ms since the test file started. */
  at: number;
}

interface Ack {
  rid: string;
  value: number;
  version: number;
  read: number;
  moved: boolean;
  pid: number;
}
/** Every increment answered 200, in the order the client saw the answers. */
const acked: Ack[] = [];

/** What happened so far, for failure messages. */
const story = () => `\n--- what happened:\n${journal.join('\n')}\n--- acknowledged (rid value/version pid moved):\n${acked.map((a) => `${a.rid} ${a.value}/${a.version} ${a.pid}${a.moved ? ' moved' : ''}`).join('\n')}`;

/** Waits as the platform tests do; a timeout tells what happened so far. */
const until = <T>(read: () => Promise<T> | T, ok: (v: T) => boolean, timeoutMs: number, what: string, everyMs = 250): Promise<T> =>
  untilOrTimeout(read, ok, timeoutMs, what, { everyMs, explain: story });

/**
 * One increment of KEY through router-1. `body`: send one (the handler ignores it). The router
 * never sends a request with a body twice; one without may be sent again (see the E step).
 */
async function increment(rid: string, o: { pauseMs?: number; body?: string } = {}): Promise<Answer> {
  const res = await fetch(`${info.routerUrls[0]}/default/${FN}/?rid=${rid}&pause=${o.pauseMs ?? PAUSE_MS}`, {
    method: 'POST',
    headers: { 'x-counter-key': KEY, ...(o.body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: o.body,
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { text };
  }
  note(`${rid} answered ${res.status} ${text.slice(0, 200)}`);
  return { rid, status: res.status, body, at: Date.now() - t0 };
}

/** Records an increment answered 200 in `acked` (and fails on any other answer). */
function ack(a: Answer): Ack {
  expect(a.status, `increment ${a.rid} answered ${a.status} ${JSON.stringify(a.body)}${story()}`).toBe(200);
  const b = a.body as unknown as Ack;
  acked.push({ rid: a.rid, value: b.value, version: b.version, read: b.read, moved: b.moved, pid: b.pid });
  return acked.at(-1)!;
}

/** An increment that must be acknowledged. */
const acknowledged = async (rid: string): Promise<Ack> => ack(await increment(rid));

interface WorkerLogs {
  /** pid → host:port, from each process's boot marker and the runtime's `listening` line after it. */
  addressOf: Map<number, string>;
  /** rid → the process that logged it inside its pause (after the read, before the CAS). */
  paused: Map<string, { pid: number; read: number }>;
  text: string;
}

/** The function's worker logs (one file per worker slot, restarts appended). */
function workerLogs(): WorkerLogs {
  const out: WorkerLogs = { addressOf: new Map(), paused: new Map(), text: '' };
  if (!existsSync(workerLogDir)) return out;
  for (const file of readdirSync(workerLogDir).sort()) {
    const text = readFileSync(join(workerLogDir, file), 'utf8');
    out.text += `--- ${file}\n${text}`;
    let booting: number | undefined;
    for (const line of text.split('\n')) {
      const boot = /^kmw-boot pid=(\d+)/.exec(line);
      if (boot) booting = Number(boot[1]);
      const listening = /^listening https?:\/\/(\S+)/.exec(line);
      if (listening && booting !== undefined) {
        out.addressOf.set(booting, listening[1]!);
        booting = undefined;
      }
      const paused = /^kmw-pause rid=(\S+) pid=(\d+) read=(\d+)/.exec(line);
      if (paused) out.paused.set(paused[1]!, { pid: Number(paused[2]), read: Number(paused[3]) });
    }
  }
  return out;
}

/** Waits until a worker logs that increment `rid` is inside its pause. */
const insidePause = (rid: string) =>
  until(() => workerLogs().paused.get(rid), (p) => p !== undefined, 15_000, `increment ${rid} inside its pause in a worker log`, 20).then((p) => p!);

interface RouterStats {
  endpoints: Array<{ revision: string; address: string; ready: boolean; inflight: number }>;
  quarantined: Array<{ address: string; untilMs: number }>;
  functions: Array<{ namespace: string; function: string; teleports: number }>;
}

async function routerStats(): Promise<RouterStats> {
  const admin = info.components.find((c) => c.name === 'router-1')!.adminUrl!;
  return (await (await fetch(`${admin}/v1/stats`, { signal: AbortSignal.timeout(10_000) })).json()) as RouterStats;
}

/**
 * Waits until exactly two live workers of the function (none of `gone`) are the revision's ready
 * endpoints in router-1, and returns their pids.
 */
async function twoServingWorkers(gone: ReadonlySet<number>): Promise<number[]> {
  const seen = await until(
    async () => {
      const logs = workerLogs();
      const live = [...logs.addressOf.keys()].filter((pid) => !gone.has(pid) && procInfo(pid) !== undefined);
      const ready = (await routerStats()).endpoints.filter((e) => e.revision === REVISION && e.ready).map((e) => e.address).sort();
      return { live, addresses: live.map((p) => logs.addressOf.get(p)!).sort(), ready };
    },
    (v) => v.live.length === 2 && v.addresses.join() === v.ready.join(),
    90_000,
    'two live workers, both (and only they) ready in router-1',
  );
  note(`serving: ${seen.live.map((p) => `pid ${p} at ${workerLogs().addressOf.get(p)}`).join(', ')}`);
  return seen.live;
}

/** The counter as statesvc stores it (the function's own token, read-only). */
async function stored(): Promise<{ value: number; version: number }> {
  const res = await fetch(`${info.statesvcUrl}/v1/state/${encodeURIComponent(KEY)}`, {
    headers: { authorization: `Bearer ${stateToken}`, 'x-orrery-state-namespace': 'default', 'x-orrery-state-keyspace': FN },
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`statesvc GET ${KEY} answered ${res.status}: ${text}`);
  return { value: (JSON.parse(text) as { value: number }).value, version: Number(res.headers.get('x-orrery-state-version')) };
}

/**
 * CAS writes statesvc answered with `result` (ok, fenced, …) since it started, from its /metrics.
 * Only this test's function uses state on this platform, and each increment is one CAS.
 */
async function casCount(result: 'ok' | 'fenced'): Promise<number> {
  const metrics = await (await fetch(`${info.statesvcUrl}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
  return Number(new RegExp(`^orrery_statestore_ops_total\\{op="cas",result="${result}"\\} (\\d+)`, 'm').exec(metrics)?.[1] ?? 0);
}

/**
 * Sends `sig` and waits for it to take effect: stopped (SIGSTOP), or reaped (SIGKILL). A request
 * sent to a worker that is still exiting can be accepted by its listening socket and then reset,
 * and the router does not send such a request again: a 502. "Zombie" is not enough: a Node
 * process's main thread shows Z while its other threads, which share the open sockets, still
 * exit; the operator reaps the process only once all of them are gone.
 */
async function signal(pid: number, sig: 'SIGSTOP' | 'SIGCONT' | 'SIGKILL'): Promise<void> {
  process.kill(pid, sig);
  note(`${sig} pid ${pid}`);
  if (sig === 'SIGSTOP') frozen.add(pid);
  else frozen.delete(pid);
  const state = () => statFields(pid)?.[0] ?? 'gone';
  // Every thread, not only the main one: the others stop only after one of them has run.
  if (sig === 'SIGSTOP') waitUntilHalted(pid, 5_000);
  if (sig === 'SIGKILL') await until(state, (s) => s === 'gone', 10_000, `pid ${pid} reaped`, 10);
}

beforeAll(async () => {
  up = startOrreryUp(dataDir, ['--no-console', '--no-examples', '--redis-key-prefix', REDIS_PREFIX, '--state-driver', DRIVER], { cwd: base });
  info = await up.ready(170_000);
  expect(info.statesvcUrl, `statesvc is not running:\n${up.output()}`).toBeTruthy();
  expect(info.routerUrls.length, up.output()).toBeGreaterThanOrEqual(1);
  note(`orrery up ready (state driver ${DRIVER})`);

  store = createHttpStore(info.storeUrl, { token: readFileSync(info.storeTokenFile!, 'utf8').trim() });
  await store.apply(manifest);
  const pids = await twoServingWorkers(new Set());
  stateToken = pids.map(stateTokenOf).find((t): t is string => t !== undefined) ?? '';
  expect(stateToken, `a worker of ${FN} holds ORRERY_STATE_TOKEN`).not.toBe('');
}, 300_000);

afterAll(async () => {
  // A frozen worker would hold the operator's drain (SIGTERM is not handled while stopped).
  for (const pid of frozen) {
    try {
      process.kill(pid, 'SIGCONT');
    } catch {
      // gone
    }
  }
  const workers = [...workerLogs().addressOf.keys()];
  await store?.close().catch(() => {});
  await up?.stop();
  for (const pid of workers) {
    try {
      if (procInfo(pid)) process.kill(pid, 'SIGKILL');
    } catch {
      // already gone, as it should be
    }
  }
  await removeRedisKeys(REDIS_PREFIX);
  rmSync(base, { recursive: true, force: true });
}, 120_000);

describe('fencing through the whole platform: a worker killed mid-write', () => {
  it('a frozen owner loses its key and its late write is refused; the next owner killed mid-write loses nothing', { timeout: 150_000 }, async () => {
    const fencedBefore = await casCount('fenced');
    const appliedBefore = await casCount('ok');

    // --- The key's owner.
    for (const rid of ['w1', 'w2', 'w3']) await acknowledged(rid);
    const p1 = acked[0]!.pid;
    expect(acked.map((a) => a.pid), `sticky: every increment on one worker${story()}`).toEqual([p1, p1, p1]);
    expect(acked.map((a) => a.value), `a new key counts from 1${story()}`).toEqual([1, 2, 3]);

    // --- P1 frozen inside A's pause: A has read 3 and not written.
    const stalledA = increment('A', { pauseMs: STALL_MS });
    let aAnswered = false;
    void stalledA.then(() => (aAnswered = true), () => (aAnswered = true));
    const aPaused = await insidePause('A');
    expect(aPaused, `A runs on the owner and read the last value${story()}`).toEqual({ pid: p1, read: 3 });
    await signal(p1, 'SIGSTOP');
    const frozenAt = Date.now();

    // The key moves: P1's one slot is held by A, so router-1 admits the key to the other worker.
    const b1 = await acknowledged('B1');
    const moveMs = Date.now() - frozenAt;
    note(`key moved off the frozen owner after ${moveMs} ms`);
    const p2 = b1.pid;
    expect(p2, `B1 went to another worker than the frozen ${p1}${story()}`).not.toBe(p1);
    expect(b1.moved, `the router marked B1 "key moved" (X-Orrery-Key-Moved: 1)${story()}`).toBe(true);
    expect(b1.read, `P2 read P1's last write: nothing lost in the move${story()}`).toBe(3);
    for (const rid of ['B2', 'B3']) await acknowledged(rid);
    expect(acked.slice(-3).map((a) => [a.pid, a.value]), `B1..B3 on P2, counting on${story()}`).toEqual([[p2, 4], [p2, 5], [p2, 6]]);
    expect(aAnswered, `A answered while its worker was frozen${story()}`).toBe(false);
    const beforeResume = await stored();
    expect(beforeResume, `statesvc holds B3's write${story()}`).toEqual({ value: 6, version: acked.at(-1)!.version });

    // --- P1 resumes: A's CAS (read 3, P1's old fence) runs now and must be refused.
    await signal(p1, 'SIGCONT');
    const a = await stalledA;
    expect({ status: a.status, code: a.body.code, pid: a.body.pid, read: a.body.read }, `A's late write was not refused as fenced${story()}`).toEqual({
      status: 409,
      code: 'fenced',
      pid: p1,
      read: 3,
    });
    expect(await stored(), `A's late write changed the stored counter${story()}`).toEqual(beforeResume);
    expect((await casCount('fenced')) - fencedBefore, `statesvc refused exactly one CAS as fenced (A's)${story()}`).toBe(1);
    await signal(p1, 'SIGKILL');
    for (const rid of ['C1', 'C2']) await acknowledged(rid);
    expect(acked.slice(-2).map((a) => a.value), `increments go on after the stale owner died${story()}`).toEqual([7, 8]);
    expect(acked.slice(-2).every((a) => a.pid !== p1), `no answer from the killed ${p1}${story()}`).toBe(true);

    // --- The key's owner SIGKILLed inside a write's pause, twice: E has no body, F has one.
    /** The first acknowledgement after each kill of a worker with a write in flight: where a skipped value may show. */
    const afterKill: string[] = [];
    /**
     * Waits for two serving workers, finds the key's owner (one increment), starts increment `rid`
     * with a long pause and SIGKILLs the owner inside it; answers the owner and `rid`'s answer.
     */
    const killInsideWrite = async (rid: string, before: string, gone: Set<number>, body?: string) => {
      await twoServingWorkers(gone); // the operator's replacements for the killed ones serve
      const last = await acknowledged(before);
      const stalled = increment(rid, { pauseMs: STALL_MS, body });
      const paused = await insidePause(rid);
      expect(paused, `${rid} runs on the key's owner and read the last value${story()}`).toEqual({ pid: last.pid, read: last.value });
      const killedAt = Date.now();
      await signal(last.pid, 'SIGKILL');
      gone.add(last.pid);
      return { owner: last.pid, killedAt, answer: await stalled };
    };
    const gone = new Set([p1]);

    // E, without a body: router-1 sent it on the keep-alive connection C3 left, which closed
    // before any response byte, so router-1 may send it again (http1-upstream's retry of a reused
    // connection; the dead address then refuses, and the data plane admits it elsewhere). Either
    // E fails, or it is answered by the other worker as a moved key — and then applied once: its
    // first attempt died before its CAS, so no value may skip before it (it is not in afterKill).
    const e = await killInsideWrite('E', 'C3', gone);
    const eAcknowledged = e.answer.status === 200;
    if (eAcknowledged) {
      const eAck = ack(e.answer);
      note(`E was sent again by router-1 after its worker died and answered by pid ${eAck.pid} (after running its ${STALL_MS} ms pause again)`);
      expect([eAck.pid === e.owner, eAck.moved], `E, sent again after the kill, went to another worker as a moved key${story()}`).toEqual([false, true]);
    } else {
      expect(e.answer.status, `E, whose worker was killed mid-write, failed with 502${story()}`).toBe(502);
    }
    const d1 = await acknowledged('D1');
    if (!eAcknowledged) {
      afterKill.push('D1');
      note(`key moved off the killed owner after ${Date.now() - e.killedAt} ms`);
      expect(d1.moved, `the router marked D1 "key moved"${story()}`).toBe(true);
    }
    expect(d1.pid, `D1 went to another worker than the killed ${e.owner}${story()}`).not.toBe(e.owner);
    await acknowledged('D2');

    // F, with a body (never sent twice): it must fail, the key moves, increments go on.
    const f = await killInsideWrite('F', 'D3', gone, '{"n":1}');
    expect({ status: f.answer.status, code: f.answer.body.code }, `F, whose worker was killed mid-write, failed with 502${story()}`).toEqual({ status: 502, code: 'upstream_error' });
    const g1 = await acknowledged('G1');
    afterKill.push('G1');
    note(`key moved off the killed owner after ${Date.now() - f.killedAt} ms`);
    expect([g1.pid === f.owner, g1.moved], `G1 went to another worker than the killed ${f.owner}, marked "key moved"${story()}`).toEqual([false, true]);
    for (const rid of ['G2', 'G3']) await acknowledged(rid);

    // --- Accounting: nothing lost, nothing stale, nothing applied unacknowledged but E or F.
    const final = await stored();
    note(`stored ${JSON.stringify(final)}; teleports in router-1: ${(await routerStats()).functions.find((f) => f.function === FN)?.teleports}`);
    const values = acked.map((x) => x.value);
    const steps = values.map((v, i) => v - (i === 0 ? 0 : values[i - 1]!));
    expect(steps.every((s) => s >= 1), `acknowledged values strictly increase (a stale or duplicate write repeats one): ${values.join(',')}${story()}`).toBe(true);
    expect(acked.every((x, i) => i === 0 || x.version > acked[i - 1]!.version), `acknowledged versions strictly increase${story()}`).toBe(true);
    expect(final, `the stored counter is the last acknowledged write (nothing landed later, nothing rolled back)${story()}`).toEqual({
      value: acked.at(-1)!.value,
      version: acked.at(-1)!.version,
    });
    // Increments applied without an acknowledgement show as skipped values. Only a write in flight
    // when its worker was killed and never acknowledged (F; E when it failed) may be one, so a skip
    // may only show at the first acknowledgement after such a kill, at most one per kill (A was
    // refused: none for it; E acknowledged after a second send: none either, that would be E twice).
    const skipped = steps.reduce((n, s) => n + s - 1, 0);
    // Every CAS statesvc applied is in the stored value (none overwritten, none rolled back): the
    // stored value = the writes applied = acknowledged + applied without acknowledgement.
    const applied = (await casCount('ok')) - appliedBefore;
    expect({ applied, stored: final.value }, `statesvc applied ${applied} CAS writes; acknowledged ${acked.length}, skipped ${skipped}${story()}`).toEqual({
      applied: acked.length + skipped,
      stored: acked.length + skipped,
    });
    const skips = acked.map((x, i) => [x.rid, steps[i]! - 1] as const).filter(([, n]) => n > 0);
    expect(skips.every(([rid, n]) => afterKill.includes(rid) && n === 1), `skipped values (${JSON.stringify(skips)}) only right after a kill (${afterKill.join(',')}), one each${story()}`).toBe(true);
    note(`${acked.length} increments acknowledged, ${skipped} applied without acknowledgement`);
    console.log(`kill-mid-write (${DRIVER} state driver):\n${journal.join('\n')}`);
  });
});
