/**
 * Follows one RegistryCluster request until the operator reports it done, the way the console's
 * registry page does: poll `registry.members` and ask @orrery/spec's registryRequestStatus where
 * the request stands, so the CLI and the console describe progress in the same words.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { registryRequestStatus, type RegistryRequestStatus, type RegistryRequestView, type TrackedRegistryRequest } from '@orrery/spec';

export interface FollowOptions {
  /** Reads the cluster's members view (the API's registry.members). */
  read(): Promise<RegistryRequestView>;
  /** Called with each new progress text (not repeated while it stays the same). */
  onProgress(status: RegistryRequestStatus): void;
  timeoutMs: number;
  /** The console polls every second while it follows a request; so does the CLI. */
  intervalMs?: number;
  now?: () => number;
}

export type FollowResult = RegistryRequestStatus | { phase: 'timeout'; text: string };

export async function followRequest(req: TrackedRegistryRequest, o: FollowOptions): Promise<FollowResult> {
  const now = o.now ?? Date.now;
  const deadline = now() + o.timeoutMs;
  let lastText = '';
  for (;;) {
    const view = await o.read();
    const status = registryRequestStatus(req, view, now());
    if (status.text !== lastText) {
      lastText = status.text;
      o.onProgress(status);
    }
    if (status.phase === 'done') return status;
    if (now() >= deadline) return { phase: 'timeout', text: lastText };
    await sleep(o.intervalMs ?? 1000);
  }
}
