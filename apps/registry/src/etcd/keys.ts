import type { InstanceKey } from '../model/instance.ts';

/**
 * Where the registry keeps things in etcd. Instances live at
 * `<prefix>/i/<namespace>/<service>/<instanceId>`: none of the three parts may contain "/",
 * so the key parses back unambiguously.
 */
export class KeyLayout {
  readonly instancesPrefix: string;
  /** Read (never written) by the linearizable barrier: a tiny key so the read is cheap. */
  readonly barrierKey: string;
  /** Held with a lease by the registry replica that runs the expiry sweep. */
  readonly sweeperKey: string;
  /** Briefly attached to a lease by the sweep to learn, through Raft, whether the lease exists. */
  readonly sweeperProbeKey: string;

  constructor(readonly prefix: string) {
    const p = prefix.replace(/\/+$/, '');
    this.instancesPrefix = `${p}/i/`;
    this.barrierKey = `${p}/barrier`;
    this.sweeperKey = `${p}/sweeper`;
    this.sweeperProbeKey = `${p}/sweeper-probe`;
  }

  instanceKey(k: InstanceKey): string {
    return `${this.instancesPrefix}${k.namespace}/${k.service}/${k.instanceId}`;
  }

  parseInstanceKey(key: string): InstanceKey | undefined {
    if (!key.startsWith(this.instancesPrefix)) return undefined;
    const parts = key.slice(this.instancesPrefix.length).split('/');
    if (parts.length !== 3 || parts.some((p) => p === '')) return undefined;
    const [namespace, service, instanceId] = parts as [string, string, string];
    return { namespace, service, instanceId };
  }
}
