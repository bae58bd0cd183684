import { ObjectRefSchema } from '../object-ref.schema.ts';

export const GetFunctionInput = ObjectRefSchema;
