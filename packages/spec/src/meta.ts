import { z } from 'zod';
import { says } from './validate/reasons.ts';

export const API_GROUP = 'orrery.dev';
export const API_VERSION = 'v1alpha1';
export const GROUP_VERSION = `${API_GROUP}/${API_VERSION}` as const;

/** DNS-1123 label: what Kubernetes accepts for names of most objects. */
export const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** DNS-1035 label: like DNS-1123 but must start with a letter (Knative traffic tags). */
export const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

export const ObjectMetaSchema = z.object({
  name: z.string().max(63, says('name_too_long')).regex(DNS1123_LABEL, says('name_format')),
  namespace: z
    .string()
    .max(63, says('name_too_long', 'metadata.namespace must be at most 63 characters'))
    .regex(DNS1123_LABEL, says('name_format', 'metadata.namespace must be a DNS-1123 label'))
    .default('default'),
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
  uid: z.string().optional(),
  resourceVersion: z.string().optional(),
  generation: z.number().int().nonnegative().optional(),
  creationTimestamp: z.string().optional(),
  deletionTimestamp: z.string().optional(),
  finalizers: z.array(z.string()).optional(),
  ownerReferences: z
    .array(z.object({ apiVersion: z.string(), kind: z.string(), name: z.string(), uid: z.string(), controller: z.boolean().optional(), blockOwnerDeletion: z.boolean().optional() }))
    .optional(),
});
export type ObjectMeta = z.infer<typeof ObjectMetaSchema>;

/** Kubernetes-shaped status condition, so GitOps tools can read health. */
export const ConditionSchema = z.object({
  type: z.string(),
  status: z.enum(['True', 'False', 'Unknown']),
  reason: z.string().optional(),
  message: z.string().optional(),
  lastTransitionTime: z.string().optional(),
  observedGeneration: z.number().int().optional(),
});
export type Condition = z.infer<typeof ConditionSchema>;

/** Every status carries conditions and observedGeneration. */
export const StatusBaseSchema = z.object({
  conditions: z.array(ConditionSchema).optional(),
  observedGeneration: z.number().int().nonnegative().optional(),
});

export const ResourceRequirementsSchema = z.object({
  requests: z.object({ cpu: z.string().optional(), memory: z.string().optional() }).optional(),
  limits: z.object({ cpu: z.string().optional(), memory: z.string().optional() }).optional(),
});
export type ResourceRequirements = z.infer<typeof ResourceRequirementsSchema>;

export const SecretKeyRefSchema = z.object({ name: z.string().min(1), key: z.string().min(1) });
export type SecretKeyRef = z.infer<typeof SecretKeyRefSchema>;
