import { z } from 'zod';

/**
 * The registry's `GET /admin/v1/status` data (inside its `{code, message, data}` envelope): one
 * member table per etcd cluster, as orrery-registry builds it and `orrery registry status` reads it.
 */
export const RegistryMemberViewSchema = z.object({
  /** etcd member id in hex (what the membership calls take). */
  id: z.string(),
  /** Empty while an added member has not started yet. */
  name: z.string(),
  peerURLs: z.array(z.string()),
  clientURLs: z.array(z.string()),
  isLearner: z.boolean(),
  isLeader: z.boolean(),
  /** Whether the member answered its status call. */
  reachable: z.boolean(),
  raftTerm: z.number().optional(),
  raftIndex: z.number().optional(),
  raftAppliedIndex: z.number().optional(),
  dbSize: z.number().optional(),
  dbSizeInUse: z.number().optional(),
  version: z.string().optional(),
  errors: z.array(z.string()),
});
export type RegistryMemberView = z.infer<typeof RegistryMemberViewSchema>;

export const RegistryAdminStatusSchema = z.object({
  clusterId: z.string(),
  leader: z.object({ id: z.string(), name: z.string() }).nullable(),
  members: z.array(RegistryMemberViewSchema),
});
export type RegistryAdminStatus = z.infer<typeof RegistryAdminStatusSchema>;
