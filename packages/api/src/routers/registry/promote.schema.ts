import { ClusterRefSchema, MemberNameSchema } from './cluster-ref.schema.ts';

export const PromoteInput = ClusterRefSchema.extend({ member: MemberNameSchema });
