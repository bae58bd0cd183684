import { ObjectRefSchema } from '../object-ref.schema.ts';

export const FunctionRevisionsInput = ObjectRefSchema;
