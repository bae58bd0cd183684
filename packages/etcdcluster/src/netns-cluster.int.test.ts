/**
 * etcd members in network namespaces of their own (root only): addresses of their own, a
 * partition that silences a minority while the host still reaches everyone, healing, and no
 * namespace, veth, bridge or claim left behind — neither by close() nor by a SIGKILLed owner.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdCluster } from './cluster.ts';
import { preferredEtcdBin } from './etcd-bin.ts';
import { CLAIM_DIR } from './netns-names.ts';
import { ourLinks, ourNamespaces, removeLeftoverNetworks } from './netns-leftovers.ts';
import { noRetryClient } from './no-retry.ts';
import { waitFor } from './wait.ts';

const isRoot = process.getuid?.() === 0;
let cluster: EtcdCluster;

beforeAll(async () => {
  if (isRoot) cluster = await EtcdCluster.start({ size: 3, network: 'netns', etcdBin: preferredEtcdBin() });
}, 60_000);

afterAll(async () => {
  await cluster?.close();
}, 30_000);

const ofOctet = (octet: number) => ({
  namespaces: ourNamespaces().filter((n) => n.startsWith(`oetcd-${octet}-`)),
  links: ourLinks().filter((l) => l === `oeb${octet}` || l.startsWith(`oev${octet}-`)),
});

describe.skipIf(!isRoot)('EtcdCluster on network namespaces', () => {
  it('gives every member a namespace and an address of its own', async () => {
    const octet = cluster.network!.names.octet;
    expect(cluster.members.map((m) => m.clientURL)).toEqual([10, 11, 12].map((h) => `http://10.251.${octet}.${h}:2379`));
    expect(cluster.members.map((m) => m.netns)).toEqual(['m1', 'm2', 'm3'].map((n) => `oetcd-${octet}-${n}`));
    for (const m of cluster.members) expect(cluster.network!.pids(m.name)).toEqual([m.process!.pid]);
    expect(ofOctet(octet).namespaces).toHaveLength(3);
    expect(existsSync(join(CLAIM_DIR, String(octet)))).toBe(true);
  });

  it('a partitioned member cannot commit; the other two can; healing reunites them', { timeout: 60_000 }, async () => {
    const leader = await cluster.leader();
    const rest = cluster.members.map((m) => m.name).filter((n) => n !== leader);
    await cluster.network!.partition([[leader], rest]);
    try {
      // The host still reaches the cut-off member (its status answers) …
      expect(await cluster.status(leader)).toBeDefined();
      // … but it cannot commit a write, while the majority elects and writes.
      const lonely = noRetryClient(cluster.member(leader).clientURL, 3000);
      const pair = noRetryClient(rest.map((n) => cluster.member(n).clientURL), 3000);
      try {
        await expect(lonely.put('netns/lonely').value('x').exec()).rejects.toThrow();
        await waitFor('the majority to write', 30_000, async () => ((await pair.put('netns/pair').value('y').exec().catch(() => undefined)) ? true : undefined));
      } finally {
        lonely.close();
        pair.close();
      }
    } finally {
      await cluster.network!.heal();
    }
    await cluster.waitForLeader(30_000);
    const back = noRetryClient(cluster.member(leader).clientURL, 3000);
    try {
      await waitFor('the healed member to read the majority’s write', 30_000, async () =>
        (await back.get('netns/pair').string().catch(() => undefined)) === 'y' ? true : undefined,
      );
      expect(await back.get('netns/lonely').string()).toBeNull();
    } finally {
      back.close();
    }
  });

  it('close() removes namespaces, veths, bridge and claim', { timeout: 30_000 }, async () => {
    const octet = cluster.network!.names.octet;
    await cluster.close();
    expect(ofOctet(octet)).toEqual({ namespaces: [], links: [] });
    expect(existsSync(join(CLAIM_DIR, String(octet)))).toBe(false);
    for (const m of cluster.members) expect(m.state).not.toBe('running');
  });

  it('what a SIGKILLed owner left is removed by the next run', { timeout: 30_000 }, async () => {
    // A child process builds a network with a member-like sleeper inside and is killed -9.
    const script = `
      import { NetnsNetwork } from ${JSON.stringify(join(import.meta.dirname, 'netns-network.ts'))};
      const n = await NetnsNetwork.create();
      await n.addHost('a');
      const { spawn } = await import('node:child_process');
      const { cmd, args } = n.command('a', ['sleep', '600']);
      spawn(cmd, args, { stdio: 'ignore', detached: true }).unref();
      console.log(n.names.octet);`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const octet = await new Promise<number>((resolve) => child.stdout.setEncoding('utf8').once('data', (d: string) => resolve(Number(d.trim()))));
    await waitFor('the sleeper inside', 10_000, async () => (ofOctet(octet).namespaces.length === 1 ? true : undefined));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    expect(ofOctet(octet).links).toContain(`oeb${octet}`);
    // Every NetnsNetwork.create() sweeps leftovers first, so a test in another process may get
    // there before this call does: what counts is that nothing of the dead owner is left.
    removeLeftoverNetworks();
    expect(ofOctet(octet)).toEqual({ namespaces: [], links: [] });
    expect(existsSync(join(CLAIM_DIR, String(octet)))).toBe(false);
  });
});
