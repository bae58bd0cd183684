import { EnvironmentSchema, type Environment } from './kinds/environment.ts';
import { FunctionSchema, type OrreryFunction } from './kinds/function.ts';
import { RegistryClusterSchema, type RegistryCluster } from './kinds/registry-cluster.ts';
import { RevisionSchema, type Revision } from './kinds/revision.ts';
import { StateSyncSchema, type StateSync } from './kinds/state-sync.ts';

/** Every kind of the orrery.dev API group, by its `kind` string. */
export const KIND_SCHEMAS = {
  Function: FunctionSchema,
  Revision: RevisionSchema,
  Environment: EnvironmentSchema,
  RegistryCluster: RegistryClusterSchema,
  StateSync: StateSyncSchema,
} as const;

export type ResourceKind = keyof typeof KIND_SCHEMAS;
export const RESOURCE_KINDS = Object.keys(KIND_SCHEMAS) as ResourceKind[];

export type Resource = OrreryFunction | Revision | Environment | RegistryCluster | StateSync;

export function isResourceKind(kind: unknown): kind is ResourceKind {
  return typeof kind === 'string' && Object.hasOwn(KIND_SCHEMAS, kind);
}
