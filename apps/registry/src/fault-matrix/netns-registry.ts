/**
 * The real registry binary running inside a network participant's namespace (a host of the
 * etcd cluster's private network), listening on that participant's address: a partition then
 * cuts the registry off exactly as it cuts the etcd members it is grouped with, while the test
 * process on the host still reaches it. (Its admin API answers loopback callers only, so from
 * the host it is out of reach: tests that need it run the registry on the host.)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { killOnExit, type NetnsNetwork } from '@orrery/etcdcluster';
import { registryArgs } from '../testing/fixture.ts';

const BIN = join(dirname(fileURLToPath(import.meta.url)), '../../bin/orrery-registry.mjs');

export interface NetnsRegistry {
  httpUrl: string;
  adminUrl: string;
  stderr(): string;
  stop(): Promise<void>;
}

/** Adds participant `name` to the network and starts a registry in it on ports 8080 (public) and 8081 (admin). */
export async function startNetnsRegistry(network: NetnsNetwork, name: string, endpoints: string[], extra: string[] = []): Promise<NetnsRegistry> {
  const host = await network.addHost(name);
  // Later flags win: the listeners move from 127.0.0.1 to the participant's address.
  const args = [...registryArgs(endpoints, extra), '--http-addr', `${host.address}:8080`, '--admin-addr', `${host.address}:8081`];
  const { cmd, args: argv } = network.command(name, [process.execPath, BIN, ...args]);
  const child: ChildProcess = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  killOnExit(child);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const [httpUrl, adminUrl] = await new Promise<[string, string]>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`registry ${name} did not start in 60 s: ${stderr}`)), 60_000);
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /listening (\S+) admin (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve([m[1]!, m[2]!]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`registry ${name} exited with ${code}: ${stderr}`));
    });
  });
  return {
    httpUrl,
    adminUrl,
    stderr: () => stderr,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
