import { FUNCTION_LABEL, GROUP_VERSION } from '@orrery/spec';

/** The field manager every server-side apply of the operator uses. */
export const FIELD_MANAGER = 'orrery-operator';
export const REVISION_LABEL = 'orrery.dev/revision';
export const ENVIRONMENT_LABEL = 'orrery.dev/environment';
export const COMPONENT_LABEL = 'orrery.dev/component';
export const MANAGED_BY = { 'app.kubernetes.io/managed-by': FIELD_MANAGER } as const;
export { FUNCTION_LABEL };

/** A Kubernetes object as the renderers produce it: plain JSON, ready for server-side apply. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: OwnerReference[];
  };
  [field: string]: unknown;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller: boolean;
  blockOwnerDeletion: boolean;
}

/** What an owner needs to hand its children: garbage collection follows `uid`. */
export interface OwnerRef {
  kind: 'Function' | 'Revision' | 'Environment' | 'RegistryCluster' | 'StateSync';
  metadata: { name: string; uid?: string };
}

/**
 * Owner reference marking the child as controlled by `owner`, so the garbage collector deletes
 * it with the owner. Without a uid (never persisted) there is nothing to reference.
 */
export function ownerReferences(owner: OwnerRef): OwnerReference[] | undefined {
  if (!owner.metadata.uid) return undefined;
  return [
    {
      apiVersion: GROUP_VERSION,
      kind: owner.kind,
      name: owner.metadata.name,
      uid: owner.metadata.uid,
      controller: true,
      blockOwnerDeletion: true,
    },
  ];
}

/** Kubernetes names are DNS-1123 labels (≤ 63): long names keep a stable hash suffix. */
export function childName(...parts: string[]): string {
  const name = parts.join('-');
  if (name.length <= 63) return name;
  let h = 0x811c9dc5;
  for (const c of name) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0;
  return `${name.slice(0, 54).replace(/-+$/, '')}-${h.toString(16).padStart(8, '0')}`;
}
