import { ClusterRefSchema } from './cluster-ref.schema.ts';

export const ClusterMembersInput = ClusterRefSchema;
