import type { Health } from '../../components/health-badge.tsx';

interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
}

/**
 * A RegistryCluster's health from the operator's conditions: Degraded wins, then a step in
 * progress, then Available; nothing observed yet is Unknown.
 */
export function clusterHealth(conditions: readonly Condition[]): { health: Health; why: string } {
  const find = (type: string) => conditions.find((c) => c.type === type);
  const degraded = find('Degraded');
  const available = find('Available');
  const progressing = find('Progressing');
  if (degraded?.status === 'True') return { health: 'Degraded', why: degraded.message ?? degraded.reason ?? 'degraded' };
  if (available?.status === 'False') return { health: 'Degraded', why: available.message ?? available.reason ?? 'no quorum' };
  if (progressing?.status === 'True') return { health: 'Progressing', why: progressing.message ?? progressing.reason ?? 'changing membership' };
  if (available?.status === 'True') return { health: 'Healthy', why: available.message ?? 'quorum healthy' };
  return { health: 'Unknown', why: 'the operator has not reported yet' };
}
