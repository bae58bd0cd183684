import { GROUP_VERSION, type Resource } from '@orrery/spec';

/** A stored row, as the local store keeps it. */
export interface ResourceRow {
  kind: string;
  namespace: string;
  name: string;
  uid: string;
  resourceVersion: number;
  generation: number;
  metadata: Record<string, unknown>;
  spec: unknown;
  status: unknown;
  createdAt: Date | string;
}

/** Server-owned metadata fields: clients cannot set them through apply. */
export const SERVER_METADATA = ['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp'] as const;

/** The client-owned part of metadata (labels, annotations, finalizers, owners), minus name/namespace. */
export function clientMetadata(metadata: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(metadata)) {
    if (k === 'name' || k === 'namespace' || (SERVER_METADATA as readonly string[]).includes(k) || v === undefined) continue;
    out[k] = v;
  }
  return out;
}

/** Rebuilds the API object from a row. */
export function rowToResource(row: ResourceRow): Resource {
  const created = row.createdAt instanceof Date ? row.createdAt.toISOString() : new Date(row.createdAt).toISOString();
  const obj: Record<string, unknown> = {
    apiVersion: GROUP_VERSION,
    kind: row.kind,
    metadata: {
      ...row.metadata,
      name: row.name,
      namespace: row.namespace,
      uid: row.uid,
      resourceVersion: String(row.resourceVersion),
      generation: row.generation,
      creationTimestamp: created,
    },
    spec: row.spec,
  };
  if (row.status !== null && row.status !== undefined) obj.status = row.status;
  return obj as unknown as Resource;
}
