/** Starts the real `orrery-statesvc` binary for the state router test and waits for its listening line. */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const STATESVC_BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'apps', 'statesvc', 'bin', 'orrery-statesvc.mjs');

export async function spawnStatesvc(args: string[]): Promise<{ url: string; proc: ChildProcess; stop(): Promise<void> }> {
  const proc = spawn(process.execPath, [STATESVC_BIN, '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`statesvc did not start in 60 s:\n${err}`));
    }, 60_000);
    proc.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`statesvc exited with ${code}:\n${err}`));
    });
  });
  return {
    url,
    proc,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      await exited;
    },
  };
}
