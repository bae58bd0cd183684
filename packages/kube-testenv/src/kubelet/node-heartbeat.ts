import { readFileSync } from 'node:fs';
import { arch, release } from 'node:os';
import { type ApiClient, isConflict, isNotFound } from './api-client.ts';
import { leaseObject, LEASE_NAMESPACE, microTime, type NodeFacts, nodeObject, nodeStatus } from './node-status.ts';
import { rfc3339 } from './pod-status.ts';

const read = (f: string, fallback: string) => {
  try {
    return readFileSync(f, 'utf8').trim();
  } catch {
    return fallback;
  }
};

/** Facts about this machine for nodeInfo; kubeletVersion is the API server's own version. */
export async function gatherNodeFacts(api: ApiClient, o: { name: string; ip: string; podCIDR: string }): Promise<NodeFacts> {
  const version = await api.get<{ gitVersion: string }>('/version');
  const osRelease = read('/etc/os-release', '');
  return {
    ...o,
    kubeletVersion: version.gitVersion,
    machineID: read('/etc/machine-id', '00000000000000000000000000000000'),
    bootID: read('/proc/sys/kernel/random/boot_id', ''),
    kernelVersion: release(),
    osImage: /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(osRelease)?.[1] ?? 'Linux',
    architecture: arch() === 'x64' ? 'amd64' : arch(),
  };
}

export const LEASE_RENEW_MS = 10_000;
export const STATUS_UPDATE_MS = 20_000;

/**
 * Registers the Node and keeps it alive: the Lease in kube-node-lease renewed every 10 s and the
 * node status (Ready, heartbeat times) written every 20 s, well inside the node lifecycle
 * controller's 40 s grace, so it never marks the node NotReady or evicts its pods.
 */
export class NodeHeartbeat {
  private timers: NodeJS.Timeout[] = [];
  private nodeUID?: string;

  constructor(
    private readonly api: ApiClient,
    private readonly facts: NodeFacts,
    private readonly log: (line: string) => void,
  ) {}

  async start(): Promise<void> {
    await this.register();
    await this.updateStatus();
    await this.renewLease();
    this.timers.push(
      setInterval(() => void this.renewLease().catch((e: Error) => this.log(`lease: ${e.message}`)), LEASE_RENEW_MS),
      setInterval(() => void this.updateStatus().catch((e: Error) => this.log(`node status: ${e.message}`)), STATUS_UPDATE_MS),
    );
  }

  stop(): void {
    for (const t of this.timers) clearInterval(t);
  }

  private async register(): Promise<void> {
    const name = this.facts.name;
    try {
      const created = await this.api.request<{ metadata: { uid: string } }>('POST', '/api/v1/nodes', { body: nodeObject(this.facts) });
      this.nodeUID = created.metadata.uid;
      this.log(`registered node ${name}`);
    } catch (err) {
      if (!isConflict(err)) throw err;
      const existing = await this.api.get<{ metadata: { uid: string } }>(`/api/v1/nodes/${name}`);
      this.nodeUID = existing.metadata.uid;
      this.log(`node ${name} already registered`);
    }
  }

  async updateStatus(): Promise<void> {
    const name = this.facts.name;
    const current = await this.api.get<{ status?: { conditions?: Array<{ type: string; status: string; lastTransitionTime?: string }> } }>(`/api/v1/nodes/${name}`);
    const status = nodeStatus(this.facts, current.status?.conditions ?? [], rfc3339());
    await this.api.request('PATCH', `/api/v1/nodes/${name}/status`, { body: { status }, contentType: 'application/strategic-merge-patch+json' });
  }

  async renewLease(): Promise<void> {
    const name = this.facts.name;
    const path = `/apis/coordination.k8s.io/v1/namespaces/${LEASE_NAMESPACE}/leases/${name}`;
    const lease = leaseObject(name, this.nodeUID, microTime());
    try {
      await this.api.request('PATCH', path, { body: { spec: lease.spec } });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await this.api.request('POST', `/apis/coordination.k8s.io/v1/namespaces/${LEASE_NAMESPACE}/leases`, { body: lease });
    }
  }
}
