/**
 * The local placement of RegistryClusters: etcd members are child processes with data dirs under
 * `<dataDir>/registry/<ns>/<name>/<member>`, the `orrery-registry` API runs beside them with
 * tokens generated into that folder.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { RegistryCluster } from '@orrery/spec';
import { loadOrCreateTokens } from './registry-api-tokens.ts';
import type { ClusterPlacement, RegistryClusterBackend } from '../../registry-cluster/registry-cluster-backend.ts';
import { LocalMembers } from './local-registry-members.ts';
import { RegistryApiProcess } from './registry-api-process.ts';
import type { RegistryApiAuth } from '../../registry-cluster/registry-auth-args.ts';

export interface LocalRegistryClusterBackendOptions {
  /** The operator's data dir; clusters live under `<dataDir>/registry/`. */
  dataDir: string;
  /** Default `$ETCD_BIN`, else /usr/bin/etcd. */
  etcdBin?: string;
  /** etcd's heartbeat and election timeouts (default 100 ms and 1 s: members on one machine). */
  heartbeatMs?: number;
  electionMs?: number;
  /** false: no `orrery-registry` API beside the members (tests of membership only). */
  registryApi?: false | { command: string; args: string[] };
  /** Fixed registry API ports per cluster (`namespace/name` → port). */
  apiPorts?: Record<string, number>;
  /** Write credentials every registry API gets (registry master key, write tokens). */
  registryAuth?: RegistryApiAuth;
}

export interface LocalPlacement extends ClusterPlacement {
  members: LocalMembers;
}

export class LocalRegistryClusterBackend implements RegistryClusterBackend {
  private readonly o: Required<Pick<LocalRegistryClusterBackendOptions, 'etcdBin' | 'heartbeatMs' | 'electionMs'>> & LocalRegistryClusterBackendOptions;

  constructor(o: LocalRegistryClusterBackendOptions) {
    this.o = { ...o, etcdBin: o.etcdBin ?? process.env.ETCD_BIN ?? '/usr/bin/etcd', heartbeatMs: o.heartbeatMs ?? 100, electionMs: o.electionMs ?? 1000 };
  }

  open(rc: RegistryCluster, log: (msg: string, fields?: Record<string, unknown>) => void): LocalPlacement {
    const { namespace, name, uid } = rc.metadata;
    const clusterDir = join(this.o.dataDir, 'registry', namespace, name);
    const members = new LocalMembers({
      clusterDir,
      token: `orrery-${namespace}-${name}-${uid ?? 'local'}`,
      etcdBin: this.o.etcdBin,
      heartbeatMs: this.o.heartbeatMs,
      electionMs: this.o.electionMs,
      log,
    });
    const tokens = loadOrCreateTokens(clusterDir);
    const proc =
      this.o.registryApi === false
        ? undefined
        : new RegistryApiProcess({
            command: this.o.registryApi,
            clusterId: `${namespace}/${name}`,
            cleanupInterval: rc.spec.registry.cleanupInterval,
            cleanupDeleteLimit: rc.spec.registry.cleanupDeleteLimit,
            port: this.o.apiPorts?.[`${namespace}/${name}`],
            auth: this.o.registryAuth,
            log,
          });
    const etcdBin = this.o.etcdBin;
    return {
      members,
      api: proc && {
        ensure: (voters) => proc.ensure(voters, tokens),
        running: () => proc.running(),
        get url() {
          return proc.url;
        },
        stop: () => proc.stop(),
      },
      blocked: () =>
        existsSync(etcdBin)
          ? undefined
          : { reason: 'EtcdMissing', message: `no etcd binary at ${etcdBin}: install etcd-server (as root: apt-get install etcd-server) or set ETCD_BIN` },
      release: async () => {
        await proc?.stop();
        await members.stopAll();
      },
    };
  }
}
