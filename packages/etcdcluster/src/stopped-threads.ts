import { readdirSync, readFileSync } from 'node:fs';

/**
 * Whether a SIGSTOPped process has really stopped. kill(SIGSTOP) returns once the signal is
 * queued; the kernel wakes one thread, and only when that thread runs does it stop the others.
 * On a loaded machine that can take tens of milliseconds, during which the other threads still
 * answer requests — a test that "stops" etcd and then expects a write to fail would race it.
 */

/** The state letter of a /proc/<pid>/stat or /proc/<pid>/task/<tid>/stat line (the field after the command name). */
export function statState(statLine: string): string | undefined {
  // The command name is in parentheses and may itself contain ') ', so split at the last one.
  const end = statLine.lastIndexOf(')');
  if (end < 0) return undefined;
  const state = statLine.slice(end + 1).trimStart()[0];
  return state && /[A-Za-z]/.test(state) ? state : undefined;
}

/** Stopped by a signal, stopped under a tracer, or gone: in none of them does a thread run. */
export function isHaltedState(state: string | undefined): boolean {
  return state === undefined || state === 'T' || state === 't' || state === 'Z' || state === 'X';
}

/** The states of every thread of `pid`, or [] when the process is gone. */
export function threadStates(pid: number, procRoot = '/proc'): string[] {
  let tids: string[];
  try {
    tids = readdirSync(`${procRoot}/${pid}/task`);
  } catch {
    return [];
  }
  const states: string[] = [];
  for (const tid of tids) {
    try {
      const s = statState(readFileSync(`${procRoot}/${pid}/task/${tid}/stat`, 'latin1'));
      if (s) states.push(s);
    } catch {
      // The thread exited between the listing and the read: it runs nothing either.
    }
  }
  return states;
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Blocks until every thread of `pid` is halted (or the process is gone). Synchronous on purpose:
 * callers stop a member and at once send the request that must find it silent.
 */
export function waitUntilHalted(pid: number, timeoutMs = 10_000, procRoot = '/proc'): void {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const states = threadStates(pid, procRoot);
    if (states.every(isHaltedState)) return;
    if (Date.now() >= deadline) {
      throw new Error(`process ${pid} did not stop within ${timeoutMs} ms after SIGSTOP (thread states: ${states.join('')})`);
    }
    Atomics.wait(pause, 0, 0, 1);
  }
}
