/**
 * The registry's 3 etcd members as plain child processes with data dirs under
 * `<data-dir>/registry/`. Their ports are chosen once and kept in `cluster.json`, because etcd
 * remembers its peers' URLs: a restart must use the same ones to find the same cluster again.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findBinary } from './find-binary.ts';
import { type ManagedChild, startChild } from './managed-child.ts';
import { freePorts } from './ports.ts';

export interface EtcdMemberPlan {
  name: string;
  clientPort: number;
  peerPort: number;
}

export interface EtcdClusterPlan {
  token: string;
  members: EtcdMemberPlan[];
}

export const ETCD_BIN = process.env.ETCD_BIN ?? findBinary('etcd') ?? '/usr/bin/etcd';
const url = (port: number) => `http://127.0.0.1:${port}`;

/** The saved plan, or a new one (ports from `portBase` when given, else free ones). */
export async function etcdPlan(registryDir: string, size: number, portBase: number): Promise<EtcdClusterPlan> {
  const file = join(registryDir, 'cluster.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as EtcdClusterPlan;
  const ports = portBase > 0 ? Array.from({ length: size * 2 }, (_, i) => portBase + i) : await freePorts(size * 2);
  const plan: EtcdClusterPlan = {
    token: `orrery-${randomBytes(4).toString('hex')}`,
    members: Array.from({ length: size }, (_, i) => ({ name: `m${i + 1}`, clientPort: ports[2 * i]!, peerPort: ports[2 * i + 1]! })),
  };
  mkdirSync(registryDir, { recursive: true });
  writeFileSync(file, `${JSON.stringify(plan, null, 2)}\n`);
  return plan;
}

export const clientUrls = (plan: EtcdClusterPlan) => plan.members.map((m) => url(m.clientPort));

export async function startEtcdMembers(registryDir: string, plan: EtcdClusterPlan, logDir: string): Promise<ManagedChild[]> {
  const initialCluster = plan.members.map((m) => `${m.name}=${url(m.peerPort)}`).join(',');
  const started: ManagedChild[] = [];
  try {
    for (const m of plan.members) {
      const dataDir = join(registryDir, m.name);
      // An existing data dir already knows its cluster; etcd then ignores the --initial-* flags.
      started.push(
        await startChild({
          name: `etcd-${m.name}`,
          command: ETCD_BIN,
          logDir,
          args: [
            '--name', m.name,
            '--data-dir', dataDir,
            '--listen-client-urls', url(m.clientPort),
            '--advertise-client-urls', url(m.clientPort),
            '--listen-peer-urls', url(m.peerPort),
            '--initial-advertise-peer-urls', url(m.peerPort),
            '--initial-cluster', initialCluster,
            '--initial-cluster-state', 'new',
            '--initial-cluster-token', plan.token,
            '--heartbeat-interval', '100',
            '--election-timeout', '1000',
            '--logger', 'zap',
            '--log-level', 'warn',
          ],
        }),
      );
    }
    return started;
  } catch (err) {
    await Promise.all(started.map((c) => c.stop(5_000)));
    throw err;
  }
}

/** Resolves once a member reports health (which etcd only does with a leader elected). */
export async function waitForEtcdHealth(plan: EtcdClusterPlan, members: ManagedChild[], timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const dead = members.find((m) => m.exited());
    if (dead) throw new Error(`${dead.name} exited: ${dead.tail(5)}`);
    for (const u of clientUrls(plan)) {
      try {
        const body = (await (await fetch(`${u}/health`, { signal: AbortSignal.timeout(2_000) })).json()) as { health?: string };
        if (body.health === 'true') return;
      } catch {
        // not up yet
      }
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`no etcd member became healthy within ${timeoutMs / 1000} s`);
}
