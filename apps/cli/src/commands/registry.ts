import { AdminCallError, adminCall } from '../registry/admin-client.ts';
import { RegistryAdminStatusSchema } from '@orrery/spec';
import { renderStatus } from '../registry/status-table.ts';
import { parseCommandArgs } from './command-args.ts';

export const summary = 'registry cluster admin: status, member add-learner|promote|remove, leader transfer';

const HELP = `usage: orrery registry <command> [--admin-url URL] [--token TOKEN] [--json]

commands:
  status                              members, roles, leader, raft term/index/applied, db size
  member add-learner NAME PEER_URL    add a non-voting learner (prints how to start its etcd)
  member promote ID                   make a caught-up learner a voter
  member remove ID                    remove a member (never breaks quorum: etcd refuses)
  leader transfer ID                  move raft leadership to a voter

The admin API listens on loopback only. --admin-url defaults to $ORRERY_REGISTRY_ADMIN_URL or
http://127.0.0.1:18080; the token comes from --token or $ORRERY_REGISTRY_ADMIN_TOKEN.
Member ids are hex, as "status" prints them. Membership calls are sent once: if one times
out, check "status" before repeating it.`;

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs('registry', HELP, argv, {
    options: {
      'admin-url': { type: 'string' },
      token: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
  });
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  if (positionals.length === 0) {
    console.error(HELP);
    return 2;
  }
  const baseUrl = values['admin-url'] ?? process.env.ORRERY_REGISTRY_ADMIN_URL ?? 'http://127.0.0.1:18080';
  const token = values.token ?? process.env.ORRERY_REGISTRY_ADMIN_TOKEN ?? '';
  if (!token) {
    console.error('orrery registry: no admin token; pass --token or set ORRERY_REGISTRY_ADMIN_TOKEN');
    return 2;
  }
  const [cmd, sub, ...rest] = positionals;
  const key = sub && cmd !== 'status' ? `${cmd} ${sub}` : cmd!;
  const args = cmd === 'status' ? positionals.slice(1) : rest;
  const need = (n: number, usage: string): boolean => {
    if (args.length === n) return true;
    console.error(`orrery registry: usage: orrery registry ${usage}`);
    return false;
  };
  const print = (data: unknown, text: string): void => console.log(values.json ? JSON.stringify(data, null, 2) : text);
  try {
    switch (key) {
      case 'status': {
        if (!need(0, 'status')) return 2;
        const raw = await adminCall<unknown>(baseUrl, token, 'GET', '/admin/v1/status');
        const parsed = RegistryAdminStatusSchema.safeParse(raw);
        if (!parsed.success) throw new AdminCallError('bad_response', `the registry's /admin/v1/status answer does not match this CLI's contract (is the registry a different version?): ${parsed.error.issues[0]?.message ?? ''}`);
        print(parsed.data, renderStatus(parsed.data));
        return 0;
      }
      case 'member add-learner': {
        if (!need(2, 'member add-learner NAME PEER_URL')) return 2;
        const data = await adminCall<{ member: { id: string }; initialCluster: string }>(baseUrl, token, 'POST', '/admin/v1/members/add-learner', {
          name: args[0],
          peerURL: args[1],
        });
        print(
          data,
          `added learner ${args[0]} as ${data.member.id}\nstart its etcd with:\n  --name ${args[0]} --initial-advertise-peer-urls ${args[1]} --initial-cluster ${data.initialCluster} --initial-cluster-state existing\nthen, once it has caught up: orrery registry member promote ${data.member.id}`,
        );
        return 0;
      }
      case 'member promote': {
        if (!need(1, 'member promote ID')) return 2;
        const data = await adminCall(baseUrl, token, 'POST', '/admin/v1/members/promote', { id: args[0] });
        print(data, `promoted ${args[0]} to voter`);
        return 0;
      }
      case 'member remove': {
        if (!need(1, 'member remove ID')) return 2;
        const data = await adminCall(baseUrl, token, 'POST', '/admin/v1/members/remove', { id: args[0] });
        print(data, `removed ${args[0]}`);
        return 0;
      }
      case 'leader transfer': {
        if (!need(1, 'leader transfer ID')) return 2;
        const data = await adminCall<{ from: string; leader: string; changed: boolean }>(baseUrl, token, 'POST', '/admin/v1/leader/transfer', { targetId: args[0] });
        print(data, data.changed ? `leadership moved from ${data.from} to ${data.leader}` : `${data.leader} already leads`);
        return 0;
      }
      default:
        console.error(`orrery registry: unknown command "${positionals.join(' ')}"\n\n${HELP}`);
        return 2;
    }
  } catch (err) {
    if (err instanceof AdminCallError) {
      console.error(`orrery registry: ${err.code}: ${err.message}`);
      return 1;
    }
    throw err;
  }
}
