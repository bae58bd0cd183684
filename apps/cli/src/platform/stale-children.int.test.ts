/**
 * `orrery up` after a supervisor died: the children it recorded in platform.json that are still
 * alive — and really ours, by their command line — are stopped (SIGTERM, grace, SIGKILL) along
 * with what they started; a recycled pid running something else is left alone.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { claimDataDir } from '../commands/up.ts';
import { pidAlive } from './pid-alive.ts';
import { type PlatformInfo, writePlatformInfo } from './platform-file.ts';
import { procInfo } from './processes.ts';
import { expectedProgram, findStaleChildren, stopStaleChildren } from './stale-children.ts';

const dir = mkdtempSync(join(tmpdir(), 'orrery-stale-'));
const spawned: ChildProcess[] = [];

/** A stand-in for `apps/<app>/bin/orrery-<app>.mjs`: same file name, runs `body`. */
function fake(app: string, body: string, extra: string[] = []): ChildProcess {
  const binDir = join(dir, 'apps', app, 'bin');
  mkdirSync(binDir, { recursive: true });
  const file = join(binDir, `orrery-${app}.mjs`);
  writeFileSync(file, `${body}\nsetInterval(() => {}, 1000);\nconsole.log('up');\n`);
  const child = spawn(process.execPath, [file, '--data-dir', dir, ...extra], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
  spawned.push(child);
  return child;
}

const ready = (c: ChildProcess) => new Promise<void>((r) => c.stdout!.once('data', () => r()));

async function deadPid(): Promise<number> {
  const c = spawn(process.execPath, ['-e', '']);
  await new Promise((r) => c.once('exit', r));
  return c.pid!;
}

afterAll(() => {
  for (const c of spawned) {
    try {
      process.kill(-c.pid!, 'SIGKILL');
    } catch {
      // gone
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('stale children of a dead supervisor', () => {
  it('recognises our programs by name', () => {
    expect(expectedProgram('router-2').test('/usr/bin/node /repo/apps/router/bin/orrery-router.mjs --port 1')).toBe(true);
    expect(expectedProgram('router-2').test('/usr/bin/node /repo/apps/registry/bin/orrery-registry.mjs')).toBe(false);
    expect(expectedProgram('statesvc').test('node /x/orrery-statesvc.mjs')).toBe(true);
    expect(expectedProgram('redis').test('/usr/bin/redis-server 127.0.0.1:6379')).toBe(true);
    expect(expectedProgram('redis').test('/usr/bin/sleep 100')).toBe(false);
  });

  it('stops only our live children and what they started, SIGKILL after the grace; `orrery up` does it first', { timeout: 60_000 }, async () => {
    // router-1: ours, stops on SIGTERM. router-2: ours, ignores SIGTERM (needs SIGKILL).
    const router1 = fake('router', '');
    const router2 = fake('router', "process.on('SIGTERM', () => {});");
    // operator: ours, with a grandchild in its process group (a worker) that names the data dir.
    const operator = fake('operator', `import { spawn } from 'node:child_process'; spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', ${JSON.stringify(dir)}], { stdio: 'ignore' });`);
    // statesvc's recorded pid now runs something else (a recycled pid): left alone.
    const stranger = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore' });
    spawned.push(stranger);
    await Promise.all([ready(router1), ready(router2), ready(operator)]);

    const info: PlatformInfo = {
      storeUrl: 'http://127.0.0.1:1',
      routerUrls: [],
      dataDir: dir,
      pids: { supervisor: await deadPid(), 'router-1': router1.pid!, 'router-2': router2.pid!, operator: operator.pid!, statesvc: stranger.pid!, console: await deadPid() },
      components: [],
      stateDriver: 'memory',
      startedAt: '',
    };
    // The operator's grandchild starts after the operator says ready; on a loaded machine that takes a while.
    let found = findStaleChildren(info);
    for (let i = 0; i < 100 && !found.some((f) => f.name === 'operator (child)'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      found = findStaleChildren(info);
    }
    const grandchild = found.find((f) => f.name === 'operator (child)');
    expect(found.map((f) => f.name).sort()).toEqual(['operator', 'operator (child)', 'router-1', 'router-2']);
    expect(procInfo(grandchild!.pid)?.pgrp).toBe(operator.pid);

    const lines: string[] = [];
    const stopped = await stopStaleChildren(info, (l) => lines.push(l), 1_000);
    expect(stopped).toHaveLength(4);
    expect(lines[0]).toMatch(/^stopping 4 process\(es\) left running by the previous supervisor \(pid \d+\): /);
    expect(lines[0]).toContain(`router-1 pid ${router1.pid}, router-2 pid ${router2.pid}, operator pid ${operator.pid} (+1 it started)`);
    expect(lines.some((l) => l.includes(`killed router-2 (pid ${router2.pid})`))).toBe(true);
    // A killed process may linger a moment on a loaded machine (until its parent reaps it): allow 10 s.
    for (const pid of [router1.pid!, router2.pid!, operator.pid!, grandchild!.pid]) {
      for (let i = 0; i < 100 && pidAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
      expect(pidAlive(pid), `pid ${pid}`).toBe(false);
    }
    expect(pidAlive(stranger.pid!)).toBe(true);

    // `orrery up` on that data dir runs the same clean-up before it starts anything.
    const router3 = fake('router', '');
    await ready(router3);
    writePlatformInfo({ ...info, pids: { supervisor: info.pids.supervisor, 'router-1': router3.pid! } });
    const said: string[] = [];
    expect(await claimDataDir(dir, (l) => said.push(l), (l) => said.push(`error: ${l}`))).toBe(true);
    expect(said.join('\n')).toMatch(/^stopping 1 process\(es\) left running by the previous supervisor \(pid \d+\): router-1 pid \d+$/);
    expect(pidAlive(router3.pid!)).toBe(false);

    // …and refuses a data dir whose supervisor lives.
    writePlatformInfo({ ...info, pids: { supervisor: process.pid } });
    expect(await claimDataDir(dir, (l) => said.push(l), (l) => said.push(`error: ${l}`))).toBe(false);
    expect(said.at(-1)).toMatch(/^error: already running \(supervisor pid \d+\)/);
  });
});
