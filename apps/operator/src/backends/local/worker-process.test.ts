import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT_WITH_PARENT_ENV, WorkerProcess } from './worker-process.ts';
import { WorkerStartSlots } from './worker-start-slots.ts';

// A stand-in worker program: says it listens after LISTEN_AFTER_MS (never when it is -1), then idles.
const PROGRAM = `const ms = Number(process.env.LISTEN_AFTER_MS); if (ms >= 0) setTimeout(() => console.log('listening http://127.0.0.1:1'), ms); setInterval(() => {}, 1000);`;

const dirs: string[] = [];
const workers: WorkerProcess[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/**
 * A supervised stand-in worker; with `slots`, it takes a start slot before it spawns. Its peers
 * are the test's other workers (each starting, so it queues when no slot is free), or none when
 * `alone` (then its start is urgent).
 */
function worker(id: string, listenAfterMs: number, slots?: WorkerStartSlots, o: { alone?: boolean; maxHoldMs?: number } = {}): WorkerProcess {
  const dir = mkdtempSync(join(tmpdir(), 'orrery-start-slots-'));
  dirs.push(dir);
  const w = new WorkerProcess(
    {
      id,
      command: process.execPath,
      args: ['-e', PROGRAM],
      env: { LISTEN_AFTER_MS: String(listenAfterMs) },
      logFile: join(dir, 'worker.log'),
      drainTimeoutMs: 1000,
      labels: { namespace: 'default', function: id, revision: `${id}-00001` },
      workDir: dir,
    },
    () => undefined,
    slots ? { slots, peers: () => (o.alone ? [] : workers), maxHoldMs: o.maxHoldMs } : undefined,
  );
  workers.push(w);
  return w;
}

const until = async (what: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe('WorkerProcess with start slots', () => {
  it('a worker waits for a slot (starting, no process) and spawns once the one before it listens', async () => {
    const slots = new WorkerStartSlots(1);
    const a = worker('a', 300, slots);
    const b = worker('b', 0, slots);
    a.start();
    b.start();
    expect(a.pid).toBeDefined();
    expect(b.state).toBe('starting');
    expect(b.pid).toBeUndefined();
    await until(() => a.state === 'ready');
    await until(() => b.state === 'ready');
    // b was spawned only after a's listening line.
    expect(b.spawnedAt).toBeGreaterThanOrEqual(a.listeningAt);
    expect(slots.counts()).toEqual({ starting: 0, waiting: 0 });
  });

  it('the start of a worker with no peer ready or starting is urgent: it spawns at once, past the limit', async () => {
    const slots = new WorkerStartSlots(1);
    const first = worker('first', 300, slots);
    const queued = worker('queued', 0, slots);
    const urgent = worker('urgent', 0, slots, { alone: true });
    first.start();
    queued.start();
    urgent.start();
    expect(urgent.pid).toBeDefined();
    expect(queued.pid).toBeUndefined();
    await until(() => queued.state === 'ready' && urgent.state === 'ready');
    expect(queued.spawnedAt).toBeGreaterThanOrEqual(Math.min(first.listeningAt, urgent.listeningAt));
  });

  it('stopping a waiting worker withdraws its wait: it never spawns', async () => {
    const slots = new WorkerStartSlots(1);
    const a = worker('a', 200, slots);
    const b = worker('b', 0, slots);
    a.start();
    b.start();
    await b.stop();
    expect(b.state).toBe('stopped');
    expect(slots.counts()).toEqual({ starting: 1, waiting: 0 });
    await until(() => a.state === 'ready');
    await new Promise((r) => setTimeout(r, 100));
    expect(b.pid).toBeUndefined();
    expect(b.spawnedAt).toBe(0);
  });

  it('a worker that exits before listening gives its slot back', async () => {
    const slots = new WorkerStartSlots(1);
    const a = worker('a', -1, slots);
    const b = worker('b', 0, slots);
    a.start();
    b.start();
    await a.stop();
    await until(() => b.state === 'ready');
  });

  it('a worker that never says it listens holds its slot only for maxHoldMs', async () => {
    const slots = new WorkerStartSlots(1);
    const hung = worker('hung', -1, slots, { maxHoldMs: 300 });
    const b = worker('b', 0, slots);
    hung.start();
    b.start();
    await until(() => b.state === 'ready');
    expect(hung.state).toBe('starting');
    expect(b.spawnedAt - hung.spawnedAt).toBeGreaterThanOrEqual(290);
  });
});

describe('WorkerProcess restarts', () => {
  it('restarts a killed worker at once the first time, then backs off while it keeps dying', async () => {
    const w = worker('w', 0);
    w.start();
    await until(() => w.state === 'ready');
    const gaps: number[] = [];
    for (let i = 0; i < 3; i++) {
      const pid = w.pid!;
      process.kill(pid, 'SIGKILL');
      // Seen within a 5 ms poll of the exit (or already restarted, when that is at once).
      await until(() => w.state === 'backoff' || (w.pid !== undefined && w.pid !== pid));
      const exitSeenAt = performance.now();
      await until(() => w.pid !== undefined && w.pid !== pid);
      gaps.push(w.spawnedAt - exitSeenAt);
      await until(() => w.state === 'ready');
    }
    expect(w.restarts).toBe(3);
    // At once (the exit event and a timer turn), then 0.5 s, then 1 s (loose bounds: a loaded CI machine).
    expect(gaps[0]).toBeLessThan(200);
    expect(gaps[1]).toBeGreaterThanOrEqual(300);
    expect(gaps[2]).toBeGreaterThanOrEqual(700);
  });
});

describe('WorkerProcess environment', () => {
  it('tells the worker whose death ends it (ORRERY_EXIT_WITH_PARENT = this operator), whatever the template says', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orrery-worker-env-'));
    dirs.push(dir);
    const w = new WorkerProcess(
      {
        id: 'env',
        command: process.execPath,
        args: ['-e', `console.log('listening http://127.0.0.1:1'); console.log('parent=' + process.env.${EXIT_WITH_PARENT_ENV} + ' ppid=' + process.ppid); setInterval(() => {}, 1000);`],
        env: { [EXIT_WITH_PARENT_ENV]: '1' },
        logFile: join(dir, 'worker.log'),
        drainTimeoutMs: 1000,
        labels: { namespace: 'default', function: 'env', revision: 'env-00001' },
        workDir: dir,
      },
      () => undefined,
    );
    workers.push(w);
    w.start();
    const log = () => (existsSync(join(dir, 'worker.log')) ? readFileSync(join(dir, 'worker.log'), 'utf8') : '');
    await until(() => /parent=\d+ ppid=\d+/.test(log()));
    const [, parent, ppid] = /parent=(\d+) ppid=(\d+)/.exec(log())!;
    expect(Number(parent)).toBe(process.pid);
    expect(Number(ppid)).toBe(process.pid);
  });
});
