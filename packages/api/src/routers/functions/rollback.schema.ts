import { GenerationSchema, NameSchema, ObjectRefSchema, ResourceVersionSchema } from '../object-ref.schema.ts';

export const RollbackInput = ObjectRefSchema.extend({ revision: NameSchema, resourceVersion: ResourceVersionSchema, generation: GenerationSchema });
