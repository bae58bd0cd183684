/**
 * The Events the local operator recorded about a function and its revisions: its `GET
 * /v1/events` (store token; the embedded store has no Event kind). undefined when they cannot
 * be read here (no store token known, or an operator without the endpoint): describe then says
 * Events are not recorded rather than "none".
 */
import { OperatorEventListSchema } from '@orrery/spec';
import type { DescribedEvent } from './function-description.ts';

export async function localEvents(operatorUrl: string, storeToken: string | undefined, namespace: string, functionName: string, revisionNames: readonly string[]): Promise<DescribedEvent[] | undefined> {
  if (!storeToken) return undefined;
  let res: Response;
  try {
    res = await fetch(`${operatorUrl}/v1/events?namespace=${encodeURIComponent(namespace)}`, { headers: { authorization: `Bearer ${storeToken}` }, signal: AbortSignal.timeout(10_000) });
  } catch {
    return undefined;
  }
  if (!res.ok) return undefined;
  const parsed = OperatorEventListSchema.safeParse(await res.json().catch(() => undefined));
  if (!parsed.success) return undefined;
  const revisions = new Set(revisionNames);
  return parsed.data.events
    .filter((e) => (e.involvedObject.kind === 'Function' && e.involvedObject.name === functionName) || (e.involvedObject.kind === 'Revision' && revisions.has(e.involvedObject.name)))
    .map((e) => ({ type: e.type, reason: e.reason, object: `${e.involvedObject.kind}/${e.involvedObject.name}`, message: e.message, count: e.count, lastSeen: e.lastTimestamp }));
}
