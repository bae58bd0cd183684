/**
 * The local platform's registry: the RegistryCluster in the examples (`default/registry`), run
 * by the operator's reconciler. `orrery up` applies it first (even with --no-examples: it is
 * part of the platform) and routes workers and routers to its registry API.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { findBinary } from './find-binary.ts';

export const PLATFORM_REGISTRY = { namespace: 'default', name: 'registry' } as const;

/** The etcd the operator will run (passed to it as ETCD_BIN so both agree). */
export const ETCD_BIN = process.env.ETCD_BIN ?? findBinary('etcd') ?? '/usr/bin/etcd';

const REPO_EXAMPLES = resolve(fileURLToPath(import.meta.url), '..', '..', '..', '..', '..', 'examples');

/** `registry-cluster.yaml` from the examples in use (falling back to the repository's). */
export function readPlatformRegistryManifest(examplesDir: string): Record<string, unknown> {
  const own = join(examplesDir, 'registry-cluster.yaml');
  const file = existsSync(own) ? own : join(REPO_EXAMPLES, 'registry-cluster.yaml');
  const obj = parse(readFileSync(file, 'utf8')) as { kind?: string; metadata?: { name?: string; namespace?: string } } & Record<string, unknown>;
  if (obj?.kind !== 'RegistryCluster' || obj.metadata?.name !== PLATFORM_REGISTRY.name || (obj.metadata.namespace ?? 'default') !== PLATFORM_REGISTRY.namespace) {
    throw new Error(`${file} must hold the RegistryCluster ${PLATFORM_REGISTRY.namespace}/${PLATFORM_REGISTRY.name}`);
  }
  return obj;
}
