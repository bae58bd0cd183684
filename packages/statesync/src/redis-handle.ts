import type { Cluster, Redis } from 'ioredis';

/** What the manager talks to: a single Redis or a Cluster (ioredis 6). */
export type RedisHandle = Redis | Cluster;

export function isCluster(redis: RedisHandle): redis is Cluster {
  return redis.isCluster;
}

/** SCAN is per node: on a Cluster every master is scanned (the hash tag puts a namespace on one). */
export function scanTargets(redis: RedisHandle): Redis[] {
  return isCluster(redis) ? redis.nodes('master') : [redis];
}

export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Throws the first error of a pipeline's `exec()` result, so a partial failure fails the push. */
export function throwOnPipelineError(results: Array<[Error | null, unknown]> | null): void {
  if (results === null) throw new Error('statesync: pipeline was discarded');
  for (const [err] of results) if (err) throw err;
}
