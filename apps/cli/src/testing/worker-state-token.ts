import { readFileSync } from 'node:fs';

/**
 * The state token a worker was started with: /proc/<pid>/environ keeps the environment a process
 * began with. Tests read it to call statesvc as the function does, or to scan for it as a secret.
 */
export function stateTokenOf(pid: number): string | undefined {
  try {
    const entry = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').find((v) => v.startsWith('ORRERY_STATE_TOKEN='));
    return entry?.slice('ORRERY_STATE_TOKEN='.length) || undefined;
  } catch {
    return undefined;
  }
}
