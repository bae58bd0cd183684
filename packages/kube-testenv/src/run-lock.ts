/**
 * One Kubernetes test run at a time on this machine. The files of one run take turns on the
 * cluster (fileParallelism: false), but two runs — `npm test` and someone's
 * `npx vitest run packages/chart-tests`, which picks up the kubernetes project as well — would
 * share it too: installing into the same namespaces and uninstalling each other's releases.
 *
 * The lock is flock(1) held by a child process for as long as the run lasts. The child's stdin
 * is a pipe from us, so when our process ends in any way (even SIGKILL) it exits and the lock
 * goes with it; nothing is left to clean up.
 */
import { spawn } from 'node:child_process';

export const RUN_LOCK = '/tmp/orrery-kube-run.lock';

export async function acquireRunLock(log: (line: string) => void, path = RUN_LOCK): Promise<() => void> {
  const child = spawn('flock', ['--exclusive', path, 'sh', '-c', 'echo locked; exec cat >/dev/null'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const started = Date.now();
  const waiting = setInterval(() => log(`[kube-testenv] waiting for another Kubernetes test run to finish (${path}, ${Math.round((Date.now() - started) / 1000)} s)`), 30_000);
  try {
    await new Promise<void>((resolve, reject) => {
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        if (out.includes('locked')) resolve();
      });
      child.once('error', (err) => reject(new Error(`cannot take ${path} with flock(1): ${err.message} (util-linux)`)));
      child.once('exit', (code) => reject(new Error(`flock ${path} exited with ${code} before taking the lock`)));
    });
  } finally {
    clearInterval(waiting);
  }
  child.removeAllListeners('exit');
  // Our own event loop must not wait on the lock holder.
  child.unref();
  (child.stdout as unknown as { unref?: () => void }).unref?.();
  (child.stdin as unknown as { unref?: () => void }).unref?.();
  return () => {
    child.stdin.end();
    child.kill();
  };
}
