import { ClusterRefSchema, MemberNameSchema } from './cluster-ref.schema.ts';

export const RemoveMemberInput = ClusterRefSchema.extend({ member: MemberNameSchema });
