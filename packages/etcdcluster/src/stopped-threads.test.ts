import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isHaltedState, statState, threadStates, waitUntilHalted } from './stopped-threads.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A /proc look-alike with one process whose threads have the given states. */
function fakeProc(pid: number, states: string[]): string {
  const root = mkdtempSync(join(tmpdir(), 'orrery-fake-proc-'));
  dirs.push(root);
  states.forEach((s, i) => {
    mkdirSync(join(root, String(pid), 'task', String(pid + i)), { recursive: true });
    writeFileSync(join(root, String(pid), 'task', String(pid + i), 'stat'), `${pid + i} (etcd) ${s} 1 ${pid} ${pid} 0 -1\n`);
  });
  return root;
}

describe('statState', () => {
  it('reads the letter after the command name, even when the name holds ") "', () => {
    expect(statState('42 (etcd) S 1 42 42 0 -1')).toBe('S');
    expect(statState('42 (odd) name) T 1 42 42 0 -1')).toBe('T');
    expect(statState('42 (etcd)  R 1')).toBe('R');
    expect(statState('garbage')).toBeUndefined();
    expect(statState('42 (etcd) ')).toBeUndefined();
  });

  it('counts stopped, traced and exited threads as halted, running and sleeping ones not', () => {
    for (const s of ['T', 't', 'Z', 'X', undefined]) expect(isHaltedState(s)).toBe(true);
    for (const s of ['R', 'S', 'D', 'I']) expect(isHaltedState(s)).toBe(false);
  });
});

describe('waitUntilHalted', () => {
  it('returns at once when every thread is stopped, or the process is gone', () => {
    expect(threadStates(7, fakeProc(7, ['T', 'T', 't']))).toEqual(['T', 'T', 't']);
    expect(() => waitUntilHalted(7, 50, fakeProc(7, ['T', 'T', 't']))).not.toThrow();
    expect(threadStates(8, fakeProc(7, ['T']))).toEqual([]);
    expect(() => waitUntilHalted(8, 50, fakeProc(7, ['T']))).not.toThrow();
  });

  it('keeps waiting while one thread still runs, and says which states it saw', () => {
    const root = fakeProc(7, ['T', 'S', 'T']);
    const started = Date.now();
    expect(() => waitUntilHalted(7, 60, root)).toThrow(/did not stop within 60 ms .*TST/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(55);
  });

  it('sees every thread of a real SIGSTOPped process stopped, and none after SIGCONT', async () => {
    // node runs several threads (V8 platform workers, libuv), like etcd's Go runtime.
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => child.once('spawn', resolve));
      const pid = child.pid!;
      for (let i = 0; i < 100 && threadStates(pid).length < 2; i++) await new Promise((r) => setTimeout(r, 10));
      expect(threadStates(pid).length).toBeGreaterThan(1);
      child.kill('SIGSTOP');
      waitUntilHalted(pid, 5_000);
      expect(threadStates(pid).every((s) => s === 'T')).toBe(true);
      child.kill('SIGCONT');
      for (let i = 0; i < 200 && threadStates(pid).some((s) => s === 'T'); i++) await new Promise((r) => setTimeout(r, 5));
      expect(threadStates(pid)).not.toContain('T');
    } finally {
      child.kill('SIGKILL');
    }
  });
});
