/**
 * How long a server that serves other pods keeps serving after SIGTERM (`--drain`). In a pod,
 * Kubernetes removes the pod from its Services at the same time as it sends SIGTERM, so for a few
 * seconds kube-proxy still sends new connections and clients still reuse kept-alive ones. Serving
 * on for that long — each answer saying `Connection: close` — lets them move to another replica
 * between requests instead of losing one in flight. Outside a pod nothing routes around the
 * process, so it stops at once. A chart's preStop pause covers new connections too, but only for
 * pods made by a chart that has it; this default also covers an upgrade from one that did not.
 */
import { parseDurationMs } from './duration.ts';

export const POD_DRAIN_MS = 5_000;
export const MAX_DRAIN_MS = 60_000;

export type DrainSetting = { ok: true; ms: number } | { ok: false; message: string };

/** The flag wins; without it: POD_DRAIN_MS in a pod (KUBERNETES_SERVICE_HOST is set), else 0. */
export function resolveDrainMs(flag: string | undefined, env: NodeJS.ProcessEnv): DrainSetting {
  if (flag === undefined) return { ok: true, ms: env.KUBERNETES_SERVICE_HOST ? POD_DRAIN_MS : 0 };
  const ms = parseDurationMs(flag);
  if (!Number.isFinite(ms) || ms < 0 || ms > MAX_DRAIN_MS) return { ok: false, message: `--drain must be a duration from 0s to 60s, e.g. 5s; got "${flag}"` };
  return { ok: true, ms };
}
