/**
 * `orrery registry` through the admin API: the RegistryCluster is addressed as
 * `[namespace/]name`, membership changes are the API's registry.addLearner / promote / remove /
 * transferLeader (role-checked and audited like the console's buttons), and each is followed
 * until the operator reports its outcome.
 */
import type { RegistryRequestStatus } from '@orrery/spec';
import type { ApiClient } from '../connection/api-client.ts';
import { parseObjectRef } from '../resources/object-ref-arg.ts';
import { followRequest } from './follow-request.ts';
import { renderMembers } from './members-table.ts';

export interface ApiOptions {
  client: ApiClient;
  namespace: string | undefined;
  json: boolean;
  wait: boolean;
  timeoutMs: number;
  /** Poll period while following a request (default 1 s, as the console). */
  intervalMs?: number;
}

type Ref = { namespace: string; cluster: string };
type Action = { label: string; send: (ref: Ref) => Promise<{ requestId: string }> };

/** The membership actions by command, with the arguments each takes after CLUSTER. */
function action(key: string, args: string[], client: ApiClient): Action | { usage: string } | undefined {
  const [member, ...extra] = args;
  switch (key) {
    case 'member add-learner':
      if (extra.length) return { usage: 'member add-learner CLUSTER [MEMBER]' };
      return { label: member ? `add learner ${member}` : 'add learner', send: (ref) => client.registry.addLearner.mutate({ ...ref, ...(member ? { member } : {}) }) };
    case 'member promote':
      if (!member || extra.length) return { usage: 'member promote CLUSTER MEMBER' };
      return { label: `promote ${member}`, send: (ref) => client.registry.promote.mutate({ ...ref, member }) };
    case 'member remove':
      if (!member || extra.length) return { usage: 'member remove CLUSTER MEMBER' };
      return { label: `remove ${member}`, send: (ref) => client.registry.remove.mutate({ ...ref, member }) };
    case 'leader transfer':
      if (extra.length) return { usage: 'leader transfer CLUSTER [MEMBER]' };
      return { label: member ? `transfer leadership to ${member}` : 'transfer leadership', send: (ref) => client.registry.transferLeader.mutate({ ...ref, ...(member ? { member } : {}) }) };
    default:
      return undefined;
  }
}

/** Runs one command through the API; API failures are thrown for the caller to describe. Returns the exit code, -1 for an unknown command. */
export async function runThroughApi(key: string, positionals: string[], o: ApiOptions): Promise<number> {
  const [clusterArg, ...args] = positionals;
  const a = key === 'status' ? undefined : action(key, args, o.client);
  if (key !== 'status' && a === undefined) return -1;
  if (!clusterArg) {
    console.error(`orrery registry: name the RegistryCluster: orrery registry ${key} [namespace/]name …`);
    return 2;
  }
  const parsed = parseObjectRef(clusterArg, o.namespace);
  if ('error' in parsed) {
    console.error(`orrery registry: ${parsed.error}`);
    return 2;
  }
  const ref: Ref = { namespace: parsed.namespace, cluster: parsed.name };
  const name = `${ref.namespace}/${ref.cluster}`;
  if (key === 'status') {
    if (args.length) {
      console.error('orrery registry: usage: orrery registry status CLUSTER');
      return 2;
    }
    const view = await o.client.registry.members.query(ref);
    console.log(o.json ? JSON.stringify(view, null, 2) : renderMembers(name, view));
    return 0;
  }
  if (!a) return -1;
  if ('usage' in a) {
    console.error(`orrery registry: usage: orrery registry ${a.usage}`);
    return 2;
  }
  const { requestId } = await a.send(ref);
  const sentAt = Date.now();
  if (!o.wait) {
    console.log(o.json ? JSON.stringify({ requestId, phase: 'sent' }) : `${a.label}: recorded as ${requestId} on ${name}; follow it with: orrery registry status ${name}`);
    return 0;
  }
  console.error(`${a.label}: recorded as ${requestId} on ${name}; waiting for the operator…`);
  const result = await followRequest(
    { requestId, label: a.label, sentAt },
    {
      read: () => o.client.registry.members.query(ref),
      onProgress: (s: RegistryRequestStatus) => {
        if (s.phase !== 'done') console.error(`… ${s.text}`);
      },
      timeoutMs: o.timeoutMs,
      intervalMs: o.intervalMs,
    },
  );
  if (o.json) console.log(JSON.stringify({ requestId, ...result }));
  if (result.phase === 'timeout') {
    console.error(`orrery registry: ${requestId} is still not done after ${Math.round(o.timeoutMs / 1000)} s (${result.text}); the operator keeps working on it: follow it with orrery registry status ${name}`);
    return 1;
  }
  if (!o.json) console.log(result.text);
  // "handled": a later request finished first, so this one's outcome is only in the audit log / operator status.
  return result.phase === 'done' && (result.outcome === 'succeeded' || result.outcome === 'handled') ? 0 : 1;
}
