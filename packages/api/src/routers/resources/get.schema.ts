import { z } from 'zod';
import { NameSchema, NamespaceSchema } from '../object-ref.schema.ts';
import { KindSchema } from './kind.schema.ts';

export const GetResourceInput = z.object({ kind: KindSchema, namespace: NamespaceSchema, name: NameSchema });
