import type { Condition } from '@orrery/spec';

export type ConditionStatus = Condition['status'];

/**
 * Sets one condition, keeping `lastTransitionTime` unless the status flips, so a condition's
 * age tells an operator how long a state has lasted (Kubernetes convention).
 */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  next: { type: string; status: ConditionStatus; reason: string; message?: string },
  now: Date,
): Condition[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === next.type);
  const prev = i >= 0 ? list[i] : undefined;
  const cond: Condition = {
    type: next.type,
    status: next.status,
    reason: next.reason,
    message: next.message ?? '',
    lastTransitionTime: prev && prev.status === next.status ? prev.lastTransitionTime : now.toISOString(),
  };
  if (i >= 0) list[i] = cond;
  else list.push(cond);
  return list;
}

export function conditionTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return conditions?.some((c) => c.type === type && c.status === 'True') ?? false;
}
