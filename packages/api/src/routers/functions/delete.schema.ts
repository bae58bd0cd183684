import { ObjectRefSchema, ResourceVersionSchema } from '../object-ref.schema.ts';

export const DeleteFunctionInput = ObjectRefSchema.extend({ resourceVersion: ResourceVersionSchema });
