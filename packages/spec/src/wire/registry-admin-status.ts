import { z } from 'zod';

/**
 * The registry's `GET /admin/v1/status` data (inside its `{code, message, data}` envelope): one
 * member table per etcd cluster, as orrery-registry builds it and `orrery registry status` reads it.
 */
export const RegistryMemberViewSchema = z.object({
  id: z.string().describe('etcd member id in hex (what the membership calls take).'),
  name: z.string().describe('Empty while an added member has not started yet.'),
  peerURLs: z.array(z.string()),
  clientURLs: z.array(z.string()),
  isLearner: z.boolean(),
  isLeader: z.boolean(),
  reachable: z.boolean().describe('Whether the member answered its status call.'),
  raftTerm: z.number().optional(),
  raftIndex: z.number().optional(),
  raftAppliedIndex: z.number().optional(),
  dbSize: z.number().optional(),
  dbSizeInUse: z.number().optional(),
  version: z.string().optional().describe('etcd version.'),
  errors: z.array(z.string()).describe("The member's own alarms, or why it did not answer."),
});
export type RegistryMemberView = z.infer<typeof RegistryMemberViewSchema>;

export const RegistryAdminStatusSchema = z.object({
  clusterId: z.string().describe('etcd cluster id in hex.'),
  leader: z.object({ id: z.string(), name: z.string() }).nullable().describe('null while no reachable member reports a leader.'),
  members: z.array(RegistryMemberViewSchema),
});
export type RegistryAdminStatus = z.infer<typeof RegistryAdminStatusSchema>;
