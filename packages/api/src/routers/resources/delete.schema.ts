import { z } from 'zod';
import { NameSchema, NamespaceSchema, ResourceVersionSchema } from '../object-ref.schema.ts';
import { KindSchema } from './kind.schema.ts';

export const DeleteResourceInput = z.object({ kind: KindSchema, namespace: NamespaceSchema, name: NameSchema, resourceVersion: ResourceVersionSchema });
