import type { RegistryCluster } from '@orrery/spec';

/**
 * Why the platform registry is not ready after `orrery up`'s wait, in one line a user can act on:
 * what each member reported, whether there is a leader, whether the registry API answered, and
 * the conditions the operator set. Pure: the supervisor passes the last status it read.
 */
export function registryWaitSummary(rc: RegistryCluster | undefined, waitedSeconds: number, apiAnswers: boolean): string {
  const head = `the registry was not ready within ${waitedSeconds} s`;
  const status = rc?.status;
  if (!status) return `${head} (the operator has written no status for it yet)`;
  const members = (status.members ?? []).map((m) => `${m.name} ${m.health}${m.isLeader ? ' (leader)' : ''}${m.role === 'learner' ? ' (learner)' : ''}`);
  const conditions = (status.conditions ?? []).filter((c) => c.status !== 'True' || c.type === 'Degraded').map((c) => `${c.type}=${c.status}${c.message ? `: ${c.message}` : ''}`);
  const parts = [
    `members: ${members.length ? members.join(', ') : 'none reported'}`,
    `leader: ${status.leader ?? 'none'}`,
    `API: ${status.endpoint ? `${status.endpoint} ${apiAnswers ? 'answers' : 'not answering'}` : 'not started'}`,
    ...(conditions.length ? [`conditions: ${conditions.join('; ')}`] : []),
  ];
  return `${head} (${parts.join('; ')})`;
}
