import type { ChildProcess } from 'node:child_process';

/**
 * The URL in a freshly spawned server's `listening <url>` line on stdout (every Orrery server
 * and worker prints one when it accepts connections). Rejects if the process exits first, with
 * what `why()` says (e.g. the tail of its stderr).
 */
export function listeningUrl(child: ChildProcess, why: () => string = () => ''): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer): void => {
      out += d.toString();
      const m = /listening (https?:\/\/\S+)/.exec(out);
      if (!m) return;
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
      resolve(m[1]!);
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
      const said = why().trim();
      reject(new Error(`the process exited (${signal ?? code}) before it was listening${said ? `: ${said}` : ''}`));
    };
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
  });
}
