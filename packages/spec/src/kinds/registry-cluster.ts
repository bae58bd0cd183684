import { z } from 'zod';
import { ResourceRequirementsSchema, SecretKeyRefSchema, StatusBaseSchema } from '../meta.ts';
import { kindSchema } from './kind-schema.ts';
import { says } from '../validate/reasons.ts';
import { boundedDuration } from '../validate/rules/duration-rules.ts';
import { withCel } from '../validate/rules/object-rule.ts';
import { LEARNER_PROMOTION_RULE, LearnerObservationSchema } from './registry-learner-promotion.ts';
import { REPLICAS_ODD } from '../validate/rules/registry-cluster-rules.ts';

export const RegistryClusterSpecSchema = z.object({
  /** Voting etcd members; odd so a majority is well defined. */
  replicas: withCel(z.number().int().min(1, says('replicas_min')).refine(REPLICAS_ODD.holds, { message: says('replicas_odd') }), [
    REPLICAS_ODD,
  ]).default(3),
  /** etcd version (image tag on Kubernetes; informational locally). */
  version: z.string().default('3.7.3'),
  storage: z.object({ size: z.string().default('1Gi'), storageClassName: z.string().optional() }).default({ size: '1Gi' }),
  resources: ResourceRequirementsSchema.optional(),
  registry: z
    .object({
      replicas: z.number().int().min(1).default(2),
      adminTokenSecretRef: SecretKeyRefSchema.optional(),
      replicationTokenSecretRef: SecretKeyRefSchema.optional(),
      prometheusSdTokenSecretRef: SecretKeyRefSchema.optional(),
      cleanupInterval: boundedDuration({ reason: 'positive_duration', minMs: 0, exclusiveMin: true }).default('30s'),
      cleanupDeleteLimit: z.number().int().min(1).default(128),
    })
    .default({ replicas: 2, cleanupInterval: '30s', cleanupDeleteLimit: 128 }),
  /** When set, a member unhealthy for this long is replaced (remove + add learner). */
  replaceUnhealthyAfter: boundedDuration({ reason: 'positive_duration', minMs: 0, exclusiveMin: true }).optional(),
});
export type RegistryClusterSpec = z.infer<typeof RegistryClusterSpecSchema>;

export const RegistryMemberSchema = z.object({
  id: z.string(),
  name: z.string(),
  role: z.enum(['voter', 'learner']),
  isLeader: z.boolean(),
  raftTerm: z.number().int().nonnegative().optional(),
  raftIndex: z.number().int().nonnegative().optional(),
  raftAppliedIndex: z.number().int().nonnegative().optional(),
  dbSize: z.number().int().nonnegative().optional(),
  health: z.enum(['healthy', 'unhealthy', 'unknown']),
  peerURL: z.string().optional(),
  clientURL: z.string().optional(),
});
export type RegistryMember = z.infer<typeof RegistryMemberSchema>;

export const RegistryClusterStatusSchema = StatusBaseSchema.extend({
  members: z.array(RegistryMemberSchema).optional(),
  leader: z.string().optional(),
  endpoint: z.string().optional(),
  readyReplicas: z.number().int().nonnegative().optional(),
  /** The last one-click request (annotation `orrery.dev/requests`) the reconciler finished. */
  lastRequest: z
    .object({
      id: z.string(),
      action: z.string(),
      member: z.string().optional(),
      outcome: z.enum(['succeeded', 'failed', 'rejected']),
      message: z.string(),
      completedAt: z.string(),
    })
    .optional(),
  /** Ids of requests already executed (most recent last, bounded) so each runs exactly once. */
  handledRequests: z.array(z.string()).optional(),
  /** Members added by an add-learner request on top of spec.replicas: held as learners until promoted. */
  manualMembers: z.array(z.string()).optional(),
  /**
   * The learner as the operator saw it in its last polls (oldest first, at most two): the history
   * the promotion rule (registry-learner-promotion.ts) reads. Absent when there is no learner.
   */
  learnerObservations: z.array(LearnerObservationSchema).max(LEARNER_PROMOTION_RULE.stablePolls).optional(),
});

export const RegistryClusterSchema = kindSchema('RegistryCluster', RegistryClusterSpecSchema, RegistryClusterStatusSchema);
export type RegistryCluster = z.infer<typeof RegistryClusterSchema>;
export type RegistryClusterInput = z.input<typeof RegistryClusterSchema>;
