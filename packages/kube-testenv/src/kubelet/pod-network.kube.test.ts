/**
 * Pods on the process kubelet's network: each has its own address and network namespace,
 * Services work through the real kube-proxy (from pods and from the host), and cluster names
 * resolve through the /etc/hosts files the kubelet writes (there is no cluster DNS server).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CoreV1Api, DiscoveryV1Api, type V1Container } from '@kubernetes/client-node';
import { waitFor } from '@orrery/etcdcluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminKubeConfig, containerLog, containerPid, createNamespace, testEnv } from '../cluster-access.ts';

let core: CoreV1Api;
let ns: string;
let dispose: () => Promise<void>;

beforeAll(async () => {
  core = adminKubeConfig().makeApiClient(CoreV1Api);
  ({ name: ns, dispose } = await createNamespace('kubelet-net'));
});
afterAll(async () => dispose());

/** An HTTP server answering with its hostname and the caller's address. */
const SERVER = "require('http').createServer((q, s) => s.end(require('os').hostname() + ' saw ' + q.socket.remoteAddress)).listen(8080, () => console.log('listening'))";
const node = (name: string, script: string, extra: Partial<V1Container> = {}): V1Container => ({ name, image: 'orrery/runtime', command: ['node', '-e', script], ...extra });

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined | false> | T | undefined | false, explain?: () => string): Promise<T> {
  return waitFor(what, timeoutMs, async () => {
    try {
      const v = await probe();
      return v === false ? undefined : v;
    } catch {
      return undefined;
    }
  }, explain, 250);
}

/** A command's output for a diagnostic (its error when it fails). */
function run(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { timeout: 10_000, stdio: ['ignore', 'pipe', 'pipe'] }).toString().trim();
  } catch (e) {
    return `${cmd} failed: ${(e as Error).message}`;
  }
}

/** What the host tried, what kube-proxy was given and wrote, and the path to the pod, for a Service that does not answer in time. */
function explainService(namespace: string, clusterIP: string, podIP: string, slices: string, tries: string): string {
  const nat = run('iptables-save', ['-t', 'nat']).split('\n');
  // The Service's chains by name, so their endpoint (KUBE-SEP) rules show too.
  const chains = new Set(nat.filter((l) => l.includes(clusterIP)).flatMap((l) => l.match(/KUBE-(SVC|SEP|EXT)-[A-Z0-9]+/g) ?? []));
  const rules = nat.filter((l) => l.includes(clusterIP) || l.includes(namespace) || [...chains].some((c) => l.includes(c))).join('\n');
  const proxyLog = (() => {
    try {
      return readFileSync(join(dirname(testEnv().auditLog), 'kube-proxy.log'), 'utf8').split('\n').slice(-30).join('\n');
    } catch (e) {
      return `no kube-proxy log: ${(e as Error).message}`;
    }
  })();
  return [
    `host's last tries (ClusterIP | pod directly): ${tries}`,
    `EndpointSlices: ${slices}`,
    `route to the pod: ${run('ip', ['route', 'get', podIP])}`,
    `conntrack for ${clusterIP}:\n${run('conntrack', ['-L', '-d', clusterIP])}`,
    `nat rules for ${clusterIP}:\n${rules}`,
    `kube-proxy log (last 30 lines):\n${proxyLog}`,
  ].join('\n');
}

/** One GET from the host: its answer, or why it failed (timeout, refused, unreachable). */
async function hostGet(url: string): Promise<{ text?: string; error?: string }> {
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(2000) });
    return r.ok ? { text: await r.text() } : { error: `HTTP ${r.status}` };
  } catch (e) {
    const err = e as Error & { cause?: { code?: string; message?: string } };
    return { error: err.cause?.code ?? err.cause?.message ?? err.name };
  }
}

describe('pod network', () => {
  it('reaches a Service ClusterIP from another pod and from the host, and resolves <svc>.<ns>.svc inside pods', async () => {
    await core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name: 'server', labels: { app: 'server' } },
        spec: { containers: [node('http', SERVER, { ports: [{ name: 'http', containerPort: 8080 }], readinessProbe: { tcpSocket: { port: 'http' }, periodSeconds: 1 } })] },
      },
    });
    await core.createNamespacedService({ namespace: ns, body: { metadata: { name: 'web' }, spec: { selector: { app: 'server' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] } } });
    const svc = await core.readNamespacedService({ name: 'web', namespace: ns });
    const clusterIP = svc.spec!.clusterIP!;
    const server = await until('server ready', 30_000, async () => {
      const p = await core.readNamespacedPod({ name: 'server', namespace: ns });
      return p.status?.containerStatuses?.[0]?.ready && p;
    });
    const serverIP = server.status!.podIP!;

    // From the host: kube-proxy's iptables rules DNAT the ClusterIP to the pod. kube-proxy syncs
    // after the EndpointSlice controller marks the pod ready; on a loaded machine that takes a while.
    const discovery = adminKubeConfig().makeApiClient(DiscoveryV1Api);
    let slices = '(not read yet)';
    let tries = '(none yet)';
    const fromHost = await until('ClusterIP answers the host', 60_000, async () => {
      const list = await discovery.listNamespacedEndpointSlice({ namespace: ns, labelSelector: 'kubernetes.io/service-name=web' }).catch(() => undefined);
      if (list) slices = JSON.stringify(list.items.map((i) => i.endpoints?.map((e) => ({ a: e.addresses, ready: e.conditions?.ready }))));
      const viaService = await hostGet(`http://${clusterIP}/`);
      if (viaService.text !== undefined) return viaService.text;
      // Which half is broken: the Service's rules or the pod behind them.
      const direct = await hostGet(`http://${serverIP}:8080/`);
      tries = `${viaService.error} | ${direct.text !== undefined ? 'answered' : direct.error}`;
      return undefined;
    }, () => explainService(ns, clusterIP, serverIP, slices, tries));
    expect(fromHost).toMatch(/^server saw /);

    // From a client pod, by name and by ClusterIP.
    const CLIENT = `
      const names = ['web', 'web.${ns}', 'web.${ns}.svc', 'web.${ns}.svc.cluster.local', '${clusterIP}'];
      (async () => {
        for (;;) {
          const out = [];
          for (const n of names) {
            try { const r = await fetch('http://' + n + '/', { signal: AbortSignal.timeout(2000) }); out.push(n + ' => ' + await r.text()); }
            catch (e) { out.push(n + ' => ERR ' + (e.cause?.code ?? e.message)); }
          }
          const dns = await require('dns').promises.lookup('web.${ns}.svc').then(a => a.address, e => e.code);
          console.log('RESULT ' + JSON.stringify({ out, dns }));
          await new Promise(r => setTimeout(r, 1000));
        }
      })();`;
    await core.createNamespacedPod({ namespace: ns, body: { metadata: { name: 'client' }, spec: { containers: [node('curl', CLIENT)] } } });
    const result = await until('client reaches every name', 40_000, () => {
      const lines = containerLog(ns, 'client', 'curl').split('\n').filter((l) => l.startsWith('RESULT '));
      const line = lines.at(-1);
      if (!line) return undefined;
      const last = JSON.parse(line.slice(7)) as { out: string[]; dns: string };
      return last.out.every((o) => / => server saw /.test(o)) && last;
    });
    expect(result.dns).toBe(clusterIP);
    const client = await core.readNamespacedPod({ name: 'client', namespace: ns });
    // Each pod is its own host on the network: the server sees the client pod's address (or the node's, when kube-proxy masquerades).
    expect(result.out[0]).toMatch(new RegExp(`server saw (::ffff:)?(${client.status!.podIP!.replaceAll('.', '\\.')}|10\\.245\\.0\\.1)$`));
    expect(client.status!.podIP).not.toBe(serverIP);

    // The hosts file inside the pod carries the Service, and the pod's own name.
    const pid = containerPid(ns, 'client', 'curl')!;
    const hosts = execFileSync('nsenter', ['--target', String(pid), '--mount', 'cat', '/etc/hosts']).toString();
    expect(hosts).toContain(`${clusterIP}\tweb.${ns}.svc.cluster.local\tweb.${ns}.svc\tweb.${ns}\tweb`);
    expect(hosts).toContain(`${client.status!.podIP}\tclient`);
    expect(execFileSync('nsenter', ['--target', String(pid), '--uts', 'hostname']).toString().trim()).toBe('client');
    const resolv = execFileSync('nsenter', ['--target', String(pid), '--mount', 'cat', '/etc/resolv.conf']).toString();
    expect(resolv).toContain(`search ${ns}.svc.cluster.local svc.cluster.local cluster.local`);
    // Its own network namespace: eth0 with the pod address, not the host's interfaces.
    const addrs = execFileSync('nsenter', ['--target', String(pid), '--net', 'ip', '-o', '-4', 'addr']).toString();
    expect(addrs).toContain(`eth0    inet ${client.status!.podIP}/32`);
    expect(addrs).not.toContain('10.245.0.1');
    expect(readFileSync(`/proc/${pid}/status`, 'utf8')).toMatch(/^Uid:\s+1000\s/m);
  });

  it('keeps /etc/hosts current when a Service appears later (rewritten in place)', async () => {
    await core.createNamespacedPod({
      namespace: ns,
      body: { metadata: { name: 'watcher' }, spec: { containers: [node('w', "setInterval(() => require('dns').lookup('late.' + process.env.NS + '.svc', (e, a) => console.log('LOOKUP ' + (e ? e.code : a))), 300)", { env: [{ name: 'NS', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } }] })] } },
    });
    // No cluster DNS server: an unknown name fails at once (EAI_AGAIN: nothing answers on 127.0.0.1:53 in the pod).
    await until('lookup fails before the Service exists', 30_000, () => /LOOKUP (EAI_AGAIN|ENOTFOUND)/.test(containerLog(ns, 'watcher', 'w')));
    await core.createNamespacedService({ namespace: ns, body: { metadata: { name: 'late' }, spec: { ports: [{ port: 80 }] } } });
    const ip = (await core.readNamespacedService({ name: 'late', namespace: ns })).spec!.clusterIP!;
    await until('the running process resolves the new Service', 15_000, () => containerLog(ns, 'watcher', 'w').includes(`LOOKUP ${ip}`));
  });

  it('resolves <hostname>.<subdomain> of pods behind a headless Service (StatefulSet DNS)', async () => {
    await core.createNamespacedService({ namespace: ns, body: { metadata: { name: 'peers' }, spec: { clusterIP: 'None', publishNotReadyAddresses: true, selector: { app: 'peer' }, ports: [{ port: 2380 }] } } });
    for (const i of [0, 1]) {
      await core.createNamespacedPod({
        namespace: ns,
        body: {
          metadata: { name: `peer-${i}`, labels: { app: 'peer' } },
          spec: { hostname: `peer-${i}`, subdomain: 'peers', containers: [node('p', `setInterval(() => require('dns').lookup('peer-${1 - i}.peers.${ns}.svc.cluster.local', (e, a) => console.log('PEER ' + (e ? e.code : a))), 300)`)] },
        },
      });
    }
    const ips = await until('both peers have addresses', 30_000, async () => {
      const pods = await Promise.all([0, 1].map((i) => core.readNamespacedPod({ name: `peer-${i}`, namespace: ns })));
      return pods.every((p) => p.status?.podIP) && pods.map((p) => p.status!.podIP!);
    });
    await until('peer-0 resolves peer-1', 15_000, () => containerLog(ns, 'peer-0', 'p').includes(`PEER ${ips[1]}`));
    await until('peer-1 resolves peer-0', 15_000, () => containerLog(ns, 'peer-1', 'p').includes(`PEER ${ips[0]}`));
  });
});
