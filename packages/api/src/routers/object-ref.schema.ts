import { z } from 'zod';
import { DNS1123_LABEL } from '@orrery/spec';

export const NamespaceSchema = z.string().max(63).regex(DNS1123_LABEL, 'must be a DNS-1123 label (lowercase letters, digits, -)').default('default');
export const NameSchema = z.string().min(1).max(63).regex(DNS1123_LABEL, 'must be a DNS-1123 label (lowercase letters, digits, -)');

/** `{namespace, name}` of one object; namespace defaults to `default`. */
export const ObjectRefSchema = z.object({ namespace: NamespaceSchema, name: NameSchema });
/** Optimistic concurrency: pass the resourceVersion you read to refuse a lost update (CONFLICT). */
export const ResourceVersionSchema = z.string().regex(/^\d+$/, 'a resourceVersion as returned by get/list').optional();
/**
 * Optimistic concurrency on the spec alone: pass the metadata.generation you read. The write is
 * refused (CONFLICT) only if the spec changed since; the operator's status updates in between,
 * which bump resourceVersion, do not count.
 */
export const GenerationSchema = z.number().int().min(1).optional();
