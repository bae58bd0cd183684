import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, type Logger } from '@orrery/log';
import type { RegistryConfig } from './config.ts';
import { ClusterAdmin } from './admin/cluster-admin.ts';
import { dataClient, readClient, watchClient } from './etcd/data-client.ts';
import { ExpirySweeper } from './etcd/expiry-sweeper.ts';
import { InstanceIndex } from './etcd/instance-index.ts';
import { InstanceWriter } from './etcd/instance-writer.ts';
import { KeepAliveChannel } from './etcd/keepalive-channel.ts';
import { KeyLayout } from './etcd/keys.ts';
import { LeaderAffinity } from './etcd/leader-affinity.ts';
import { memberClientUrl, readMemberStatus, withMember } from './etcd/member-status.ts';
import { adminHandler } from './http/admin-api.ts';
import { FailureLog } from './http/failure-log.ts';
import { publicHandler } from './http/public-api.ts';
import { answerProtocolErrors } from './http/protocol-errors.ts';
import { createMetrics } from './metrics.ts';
import { WatchLimiter } from './auth/watch-limits.ts';
import { WritePolicy } from './auth/write-policy.ts';
import { Replicator } from './replication/replicator.ts';

export interface RunningRegistry {
  httpUrl: string;
  adminUrl: string;
  index: InstanceIndex;
  sweeper: ExpirySweeper;
  close(): Promise<void>;
}

export interface StartOptions {
  /** SSE keep-alive comment period (tests shorten it). */
  keepAliveMs?: number;
  /** Default: the registry's JSON-lines logger on stderr at `config.logLevel`. */
  logger?: Logger;
}

function listen(server: Server, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

function urlOf(a: AddressInfo): string {
  return a.family === 'IPv6' || a.address.includes(':') ? `http://[${a.address}]:${a.port}` : `http://${a.address}:${a.port}`;
}

/** Connects to etcd, loads the index, and opens the public and admin listeners. */
export async function startRegistry(config: RegistryConfig, options: StartOptions = {}): Promise<RunningRegistry> {
  const logger = options.logger ?? createLogger({ component: 'registry', level: config.logLevel });
  const client = dataClient(config.etcdEndpoints, config.dialTimeoutMs, config.requestTimeoutMs);
  const reads = readClient(config.etcdEndpoints, config.dialTimeoutMs, config.requestTimeoutMs);
  const keys = new KeyLayout(config.prefix);
  // Barrier reads go to the leader too (one ReadIndex hop fewer), on read-client connections:
  // short per-attempt deadlines, and any failure falls back to the all-members read client.
  const readsToLeader = new LeaderAffinity(config.etcdEndpoints, reads, (endpoint) => readClient([endpoint], config.dialTimeoutMs, config.requestTimeoutMs));
  const index = new InstanceIndex(reads, keys, config.requestTimeoutMs, () => watchClient(config.etcdEndpoints, config.dialTimeoutMs), undefined, undefined, {
    run: (call) => readsToLeader.read(call),
  });
  const keepAlive = new KeepAliveChannel(client, config.requestTimeoutMs);
  const toLeader = new LeaderAffinity(config.etcdEndpoints, client, (endpoint) => dataClient([endpoint], config.dialTimeoutMs, config.requestTimeoutMs));
  const writer = new InstanceWriter(client, keys, keepAlive, reads, toLeader, { batchPuts: config.writeBatching });
  const sweeper = new ExpirySweeper(client, keys, index, config.cleanupIntervalMs, config.cleanupDeleteLimit);
  const admin = new ClusterAdmin(() => config.etcdEndpoints, config.requestTimeoutMs);
  const metrics = createMetrics({
    instances: () => index.size(),
    expired: () => index.expiredCount(),
    revision: () => index.revision,
    barrierReads: () => index.revisions.reads,
    swept: () => sweeper.removed,
    putTxns: () => writer.puts?.batches ?? 0,
    putTxnPuts: () => writer.puts?.batchedPuts ?? 0,
    replication: () => replicator.status(),
  });
  index.onResync = () => metrics.indexResyncs.inc();

  // /healthz and /readyz ask one member for the leader; cached for a second so probes stay cheap.
  let leaderCache: { at: number; value: Promise<{ leaderId: string; leaderAddr: string } | undefined> } | undefined;
  const leader = (): Promise<{ leaderId: string; leaderAddr: string } | undefined> => {
    if (leaderCache && Date.now() - leaderCache.at < 1000) return leaderCache.value;
    const value = (async () => {
      for (const endpoint of config.etcdEndpoints) {
        try {
          // Status and member list over one connection to this member.
          const found = await withMember(endpoint, 1500, async (client) => {
            const s = await readMemberStatus(client, endpoint);
            return s.leaderId ? { leaderId: s.leaderId, leaderAddr: (await memberClientUrl(client, s.leaderId)) ?? '' } : undefined;
          });
          if (found) return found;
        } catch {
          /* try the next endpoint */
        }
      }
      return undefined;
    })();
    leaderCache = { at: Date.now(), value };
    return value;
  };

  try {
    await index.start();
  } catch (err) {
    readsToLeader.close();
    client.close();
    reads.close();
    throw new Error(`cannot load the registry from etcd at ${config.etcdEndpoints.join(',')}: ${(err as Error).message}`);
  }
  sweeper.start();
  await leader();

  let httpAddress: AddressInfo | undefined;
  const watches = new WatchLimiter(config.watchLimits);
  // Follows the other regions in [replication] targets_file (scope=merged); started once listening.
  const replicator = new Replicator(config.replicationTargets, (line) => logger.warn(line));
  // Host is checked by the handlers, so that its absence is answered with the envelope too.
  const publicServer = createServer(
    { requireHostHeader: false },
    publicHandler({
      client,
      index,
      writer,
      keys,
      metrics,
      replicationToken: config.replicationToken,
      prometheusSdToken: config.prometheusSdToken,
      requestTimeoutMs: config.requestTimeoutMs,
      keepAliveMs: options.keepAliveMs,
      leader,
      writes: new WritePolicy({ masterKeys: config.registryMasterKeys, writeTokens: config.writeTokens, requireWriteTokens: config.requireWriteTokens }),
      watches,
      sd: () => ({
        region: config.region,
        clusterId: config.clusterId,
        ...(httpAddress ? { self: { host: httpAddress.address, port: httpAddress.port } } : {}),
      }),
      replicated: (namespace) => replicator.instances(namespace),
      failures: new FailureLog((message, fields) => logger.error(message, fields)),
    }),
  );
  publicServer.keepAliveTimeout = 65_000;
  answerProtocolErrors(publicServer, (code) => metrics.requests.inc({ route: 'malformed', code }));
  const adminServer = createServer(
    { requireHostHeader: false },
    adminHandler({
      admin,
      adminToken: config.adminToken,
      registryView: () => ({ indexRevision: index.revision, instances: index.size(), watchStreams: watches.total, barrierReads: index.revisions.reads }),
      replicationTargets: () => replicator.status(),
    }),
  );
  answerProtocolErrors(adminServer);

  try {
    httpAddress = await listen(publicServer, config.httpAddr.host, config.httpAddr.port);
  } catch (err) {
    readsToLeader.close();
    await index.close();
    client.close();
    throw err;
  }
  let adminAddress: AddressInfo;
  try {
    adminAddress = await listen(adminServer, config.adminAddr.host, config.adminAddr.port);
  } catch (err) {
    publicServer.close();
    readsToLeader.close();
    await index.close();
    client.close();
    throw err;
  }

  replicator.start();

  let closing: Promise<void> | undefined;
  return {
    httpUrl: urlOf(httpAddress),
    adminUrl: urlOf(adminAddress),
    index,
    sweeper,
    close: () => {
      closing ??= (async () => {
        const timeout = new Promise<void>((r) => setTimeout(r, config.shutdownTimeoutMs).unref());
        const servers = Promise.all(
          [publicServer, adminServer].map((s) => new Promise<void>((r) => s.close(() => r()))),
        );
        // Watch streams never end on their own: cut them so close() can finish.
        publicServer.closeAllConnections();
        adminServer.closeAllConnections();
        await Promise.race([servers, timeout]);
        replicator.close();
        await sweeper.close();
        keepAlive.close();
        toLeader.close();
        readsToLeader.close();
        await index.close();
        client.close();
        reads.close();
      })();
      return closing;
    },
  };
}
