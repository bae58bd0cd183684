/**
 * `orrery registry … --admin-url URL`: straight to one registry's `/admin/v1/*` with its admin
 * token. This skips the admin API — no role check, no audit row — so it is only taken when asked
 * for explicitly: for a registry the platform does not manage, or when the API is down.
 */
import {
  RegistryAddLearnerDataSchema,
  RegistryAdminStatusSchema,
  RegistryLeaderTransferDataSchema,
  RegistryPromoteDataSchema,
  RegistryRemoveDataSchema,
} from '@orrery/spec';
import { AdminCallError, adminCall } from './admin-client.ts';
import { renderStatus } from './status-table.ts';

export interface DirectOptions {
  baseUrl: string;
  token: string;
  json: boolean;
}

/** Runs one command (`status`, `member promote`, …) with its arguments; returns the exit code. */
export async function runDirect(key: string, args: string[], o: DirectOptions): Promise<number> {
  const need = (n: number, usage: string): boolean => {
    if (args.length === n) return true;
    console.error(`orrery registry: usage: orrery registry ${usage} --admin-url URL`);
    return false;
  };
  const print = (data: unknown, text: string): void => console.log(o.json ? JSON.stringify(data, null, 2) : text);
  const bypassNote = () => console.error(`orrery registry: talking to ${o.baseUrl} directly: no role check and no audit row (leave out --admin-url to go through the admin API)`);
  try {
    switch (key) {
      case 'status': {
        if (!need(0, 'status')) return 2;
        const status = await adminCall(o.baseUrl, o.token, 'GET', '/admin/v1/status', RegistryAdminStatusSchema);
        print(status, renderStatus(status));
        return 0;
      }
      case 'member add-learner': {
        if (!need(2, 'member add-learner NAME PEER_URL')) return 2;
        bypassNote();
        const data = await adminCall(o.baseUrl, o.token, 'POST', '/admin/v1/members/add-learner', RegistryAddLearnerDataSchema, { name: args[0], peerURL: args[1] });
        print(
          data,
          `added learner ${args[0]} as ${data.member.id}\nstart its etcd with:\n  --name ${args[0]} --initial-advertise-peer-urls ${args[1]} --initial-cluster ${data.initialCluster} --initial-cluster-state existing\nthen, once it has caught up: orrery registry member promote ${data.member.id} --admin-url ${o.baseUrl}`,
        );
        return 0;
      }
      case 'member promote': {
        if (!need(1, 'member promote ID')) return 2;
        bypassNote();
        print(await adminCall(o.baseUrl, o.token, 'POST', '/admin/v1/members/promote', RegistryPromoteDataSchema, { id: args[0] }), `promoted ${args[0]} to voter`);
        return 0;
      }
      case 'member remove': {
        if (!need(1, 'member remove ID')) return 2;
        bypassNote();
        print(await adminCall(o.baseUrl, o.token, 'POST', '/admin/v1/members/remove', RegistryRemoveDataSchema, { id: args[0] }), `removed ${args[0]}`);
        return 0;
      }
      case 'leader transfer': {
        if (!need(1, 'leader transfer ID')) return 2;
        bypassNote();
        const data = await adminCall(o.baseUrl, o.token, 'POST', '/admin/v1/leader/transfer', RegistryLeaderTransferDataSchema, { targetId: args[0] });
        print(data, data.changed ? `leadership moved from ${data.from} to ${data.leader}` : `${data.leader} already leads`);
        return 0;
      }
      default:
        return -1;
    }
  } catch (err) {
    if (err instanceof AdminCallError) {
      console.error(`orrery registry: ${err.code}: ${err.message}`);
      return 1;
    }
    throw err;
  }
}
