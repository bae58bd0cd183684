import { ClusterRefSchema, MemberNameSchema } from './cluster-ref.schema.ts';

export const TransferLeaderInput = ClusterRefSchema.extend({ member: MemberNameSchema.optional() });
