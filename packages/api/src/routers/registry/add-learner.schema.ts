import { ClusterRefSchema, MemberNameSchema } from './cluster-ref.schema.ts';

export const AddLearnerInput = ClusterRefSchema.extend({ member: MemberNameSchema.optional() });
