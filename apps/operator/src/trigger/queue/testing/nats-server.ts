/**
 * A real NATS server with JetStream for the queue-trigger tests: Debian's `nats-server`
 * (scripts/services.sh installs it; NATS_SERVER_BIN overrides the path) on a free loopback port,
 * its store in a fresh directory. `stop()` kills it and removes the directory; `restart()` keeps
 * the store, as a broker restart would.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@orrery/etcdcluster';

export const NATS_SERVER_BIN = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

export interface TestNatsServer {
  url: string;
  port: number;
  output(): string;
  /** Kills the server and keeps its store and port (a broker outage); resume() starts it again. */
  pause(): Promise<void>;
  resume(): Promise<void>;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = tcpConnect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

export async function startNatsServer(): Promise<TestNatsServer> {
  if (!existsSync(NATS_SERVER_BIN)) throw new Error(`${NATS_SERVER_BIN} is missing: run bash scripts/services.sh (installs Debian's nats-server) or set NATS_SERVER_BIN`);
  const dir = mkdtempSync(join(tmpdir(), 'orrery-nats-'));
  const port = await freePort();
  let out = '';
  let child: ChildProcess | undefined;
  const launch = async () => {
    child = spawn(NATS_SERVER_BIN, ['-js', '-sd', dir, '-a', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const until = Date.now() + 10_000;
    while (!(await accepts(port))) {
      if (child.exitCode !== null || Date.now() > until) throw new Error(`nats-server did not start on port ${port}:\n${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const kill = async () => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const gone = new Promise((r) => c.once('exit', r));
    c.kill('SIGKILL');
    await gone;
  };
  await launch();
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    output: () => out,
    pause: kill,
    resume: launch,
    restart: async () => {
      await kill();
      await launch();
    },
    stop: async () => {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
