/**
 * The router's two calls to the operator's autoscaler: the once-a-second stats push (answered
 * with where the activator stands per revision) and the cold-start poke (answered, once the
 * revision's first worker is ready, with its address). Both carry the operator's store token.
 */
import { operatorPost } from './operator-post.ts';
import type { RouterRevisionStats } from '@orrery/spec';

/** How long a poke may wait for the operator to answer with the woken revision's first worker. */
export const POKE_WAIT_MS = 10_000;

export interface Poke {
  namespace: string;
  function: string;
  revision: string;
  /** The demand now: what waits plus what is in flight (the queue alone would make a busy revision look idle). */
  queueLength: number;
  inflight: number;
  router: string;
}

export class AutoscalerClient {
  constructor(
    private readonly url: string,
    private readonly token: string | undefined,
  ) {}

  /** The addresses of the revision's ready workers the operator answers with (none when it did not wait for one). */
  async poke(p: Poke): Promise<string[]> {
    const answer = await postJson(`${this.url}/v1/autoscaler/poke`, { ...p, waitMs: POKE_WAIT_MS }, this.token, POKE_WAIT_MS + 2_000);
    const addresses = (answer as { addresses?: unknown } | undefined)?.addresses;
    return Array.isArray(addresses) ? addresses.filter((a): a is string => typeof a === 'string') : [];
  }

  /** The answer says where the activator stands (ActivatorModes.apply reads it). */
  pushStats(body: { router: string; at: string; revisions: RouterRevisionStats[] }): Promise<unknown> {
    return postJson(`${this.url}/v1/autoscaler/stats`, body, this.token);
  }
}

/** A refusal (4xx/5xx) throws: the caller logs it and the next poke or push tries again. */
async function postJson(url: string, body: unknown, token?: string, timeoutMs = 2_000): Promise<unknown> {
  const answer = await operatorPost(url, body, { token, timeoutMs });
  if (answer.status >= 400) throw new Error(`HTTP ${answer.status} from ${url}`);
  return answer.body;
}
