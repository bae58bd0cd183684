import { ObjectRefSchema } from '../object-ref.schema.ts';

export const FunctionLiveInput = ObjectRefSchema;
