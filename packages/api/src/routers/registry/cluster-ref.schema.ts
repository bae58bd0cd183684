import { z } from 'zod';
import { NameSchema, NamespaceSchema } from '../object-ref.schema.ts';

/** A RegistryCluster: `{namespace, cluster}`. */
export const ClusterRefSchema = z.object({ namespace: NamespaceSchema, cluster: NameSchema });
export const MemberNameSchema = z.string().min(1).max(100).regex(/^[a-zA-Z0-9][a-zA-Z0-9._-]*$/, 'a member name (<cluster>-<n>) or etcd member id');
