import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { killOnExit } from '@orrery/etcdcluster';

/**
 * One control-plane binary: its output goes to a log file (and the last lines are kept for error
 * messages), it is stopped with SIGTERM then SIGKILL, and it never outlives the test run.
 */
export class ManagedProcess {
  child?: ChildProcess;
  private tail: string[] = [];
  private log?: WriteStream;

  constructor(
    readonly name: string,
    readonly bin: string,
    readonly args: string[],
    readonly logFile: string,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  start(): this {
    this.log = createWriteStream(this.logFile, { flags: 'a' });
    const child = spawn(this.bin, this.args, { env: this.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const take = (chunk: Buffer) => {
      this.log?.write(chunk);
      this.tail.push(...chunk.toString().split('\n').filter(Boolean));
      if (this.tail.length > 40) this.tail.splice(0, this.tail.length - 40);
    };
    child.stdout?.on('data', take);
    child.stderr?.on('data', take);
    killOnExit(child);
    this.child = child;
    return this;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get exited(): boolean {
    return !this.child || this.child.exitCode !== null || this.child.signalCode !== null;
  }

  /** The last lines it printed, for failure messages. */
  lastLines(n = 20): string {
    return this.tail.slice(-n).join('\n');
  }

  async stop(graceMs = 10_000): Promise<void> {
    const child = this.child;
    if (!child || this.exited) {
      this.log?.end();
      return;
    }
    const done = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await done;
    clearTimeout(timer);
    await new Promise<void>((r) => (this.log ? this.log.end(r) : r()));
  }
}
