import type { Resource } from '@orrery/spec';

/** The object as a client would apply it: server-owned metadata and status dropped. */
export function writableObject(obj: Resource): Record<string, unknown> {
  const { uid: _uid, resourceVersion: _rv, generation: _gen, creationTimestamp: _ct, ...metadata } = obj.metadata;
  return { apiVersion: obj.apiVersion, kind: obj.kind, metadata, spec: structuredClone(obj.spec) };
}
