/**
 * The real orrery-statesvc and orrery-router as child processes, for tests that run workers
 * against them (a stateful worker's state calls; requests routed by a sticky key).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const STATESVC_BIN = fileURLToPath(new URL('../../../statesvc/bin/orrery-statesvc.mjs', import.meta.url));
export const ROUTER_BIN = fileURLToPath(new URL('../../../router/bin/orrery-router.mjs', import.meta.url));

export interface ChildService {
  child: ChildProcess;
  /** What the process printed on stdout/stderr so far. */
  output: () => string;
}

/** Starts `args` under node and waits for stdout to match `ready` (its groups are returned). */
export async function startChild(args: string[], ready: RegExp, what: string, timeoutMs = 60_000): Promise<ChildService & { match: RegExpExecArray }> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start: ${out}`)), timeoutMs);
    const check = () => {
      const m = ready.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.stdout.off('data', check);
      resolve(m);
    };
    child.stdout.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with ${code}: ${out}`));
    });
  });
  return { child, match, output: () => out };
}

/** A statesvc with `masterKey` serving `keyspaces` (namespace/keyspace pairs) from its memory driver. */
export async function startStatesvc(dir: string, masterKey: Buffer, keyspaces: Array<[string, string]>): Promise<ChildService & { url: string }> {
  await writeFile(join(dir, 'master.key'), masterKey.toString('hex'));
  await writeFile(join(dir, 'keyspaces.yaml'), keyspaces.map(([ns, ks]) => `- {namespace: ${ns}, keyspace: ${ks}}\n`).join(''));
  const s = await startChild([STATESVC_BIN, '--port', '0', '--master-key-file', join(dir, 'master.key'), '--keyspaces-file', join(dir, 'keyspaces.yaml')], /listening (http:\/\/\S+)/, 'statesvc');
  return { child: s.child, output: () => s.output(), url: s.match[1]! };
}

/** Stops a child with SIGTERM and waits for it to exit (SIGKILL after `graceMs`). */
export async function stopChild(c: ChildService | undefined, graceMs = 5_000): Promise<void> {
  const child = c?.child;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
  child.kill('SIGTERM');
  await gone;
  clearTimeout(kill);
}
