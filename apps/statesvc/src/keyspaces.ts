import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import {
  DNS1123_LABEL,
  effectiveDefaultTtlMs,
  effectiveIdempotencyRetentionMs,
  effectiveMaxKeys,
  effectiveMaxValueBytes,
  KEYSPACE_PATTERN,
  type StateConfig,
  StateConfigSchema,
} from '@orrery/spec';
import type { KeyspaceQuota } from '@orrery/statestore';

/** One declared keyspace: what a Function's spec.state says, resolved to effective limits. */
export interface KeyspaceDeclaration extends KeyspaceQuota {
  namespace: string;
  keyspace: string;
  /** As declared ("30s"), or null. */
  defaultTTL: string | null;
}

export type KeyspaceTable = ReadonlyMap<string, KeyspaceDeclaration>;

export const keyspaceId = (namespace: string, keyspace: string) => `${namespace}/${keyspace}`;

/** A keyspace's declaration from a spec.state (file or Function alike): its effective limits. */
export function keyspaceDeclaration(namespace: string, keyspace: string, state: StateConfig): KeyspaceDeclaration {
  return {
    namespace,
    keyspace,
    maxKeys: effectiveMaxKeys(state),
    maxValueBytes: effectiveMaxValueBytes(state),
    defaultTtlMs: effectiveDefaultTtlMs(state),
    defaultTTL: state.defaultTTL ?? null,
    idempotencyRetentionMs: effectiveIdempotencyRetentionMs(state),
  };
}

/**
 * Parses the `--keyspaces-file` YAML: a list of `{namespace, keyspace, maxKeys, maxValueBytes,
 * defaultTTL, idempotencyRetention}`. The quota fields follow spec.state's rules (0 = platform default).
 */
export function parseKeyspaces(text: string, source = 'keyspaces file'): KeyspaceTable {
  const doc: unknown = parse(text) ?? [];
  if (!Array.isArray(doc)) throw new Error(`${source}: expected a YAML list of {namespace, keyspace, maxKeys, maxValueBytes, defaultTTL}`);
  const table = new Map<string, KeyspaceDeclaration>();
  doc.forEach((item: unknown, i) => {
    const where = `${source}: item ${i}`;
    if (typeof item !== 'object' || item === null) throw new Error(`${where}: expected a mapping`);
    const { namespace, keyspace, ...rest } = item as Record<string, unknown>;
    if (typeof namespace !== 'string' || !DNS1123_LABEL.test(namespace) || namespace.length > 63) {
      throw new Error(`${where}: namespace must be a DNS-1123 label`);
    }
    if (typeof keyspace !== 'string' || !KEYSPACE_PATTERN.test(keyspace) || keyspace.length > 63) {
      throw new Error(`${where}: keyspace must match ${KEYSPACE_PATTERN.source} and be at most 63 characters`);
    }
    const parsed = StateConfigSchema.safeParse({ keyspace, ...rest });
    if (!parsed.success) throw new Error(`${where}: ${parsed.error.issues.map((x) => `${x.path.join('.')}: ${x.message}`).join('; ')}`);
    const state = parsed.data;
    const id = keyspaceId(namespace, keyspace);
    if (table.has(id)) throw new Error(`${where}: ${id} is declared twice`);
    table.set(id, keyspaceDeclaration(namespace, keyspace, state));
  });
  return table;
}

export function loadKeyspacesFile(path: string): KeyspaceTable {
  return parseKeyspaces(readFileSync(path, 'utf8'), path);
}
