import { type ChildProcess, spawn } from 'node:child_process';

/** Starts a node process (statesvc or the bare baseline) and resolves with the URL it prints. */
export async function startProcess(args: string[]): Promise<{ url: string; proc: ChildProcess }> {
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    proc.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    proc.once('exit', (c) => reject(new Error(`${args.join(' ')} exited ${c}`)));
  });
  return { url, proc };
}
