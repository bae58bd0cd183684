import { parseDurationMs } from '@orrery/spec';
import { requireApiClient } from '../connection/api-client.ts';
import { API_CONNECTION_HELP, API_CONNECTION_OPTIONS, apiConnectionFlags, resolveConnection } from '../connection/resolve-connection.ts';
import { runDirect } from '../registry/admin-direct.ts';
import { runThroughApi } from '../registry/api-membership.ts';
import { parseCommandArgs } from './command-args.ts';

export const summary = 'registry clusters: status, member add-learner|promote|remove, leader transfer';

const HELP = `usage: orrery registry <command> CLUSTER [args] [-n namespace] [--json] [--no-wait] [--timeout 5m]

Through the admin API — role-checked and audited like the console's buttons. CLUSTER is a
RegistryCluster as [namespace/]name; MEMBER a member name (<cluster>-<n>) or etcd id in hex:

  status CLUSTER                      members (role, leader, term, indexes, lag, health),
                                      pending requests and the last request's outcome
  member add-learner CLUSTER [MEMBER] add a learner (it votes only once promoted)   operator
  member promote CLUSTER MEMBER       make a caught-up learner a voter               operator
  member remove CLUSTER MEMBER        remove a member (refused if quorum would break) admin
  leader transfer CLUSTER [MEMBER]    move leadership (default: a healthy voter)      admin

Each change is a request the operator carries out. The command prints its progress until the
operator reports the outcome: exit 0 when it succeeded, 1 when it failed, was rejected or is
still running after --timeout (default 5m; it keeps running — follow it with "status").
--no-wait returns as soon as the request is recorded.
${API_CONNECTION_HELP}

Direct to one registry's admin API, bypassing the admin API (NO role check, NO audit row; for a
registry the platform does not manage): --admin-url URL (or $ORRERY_REGISTRY_ADMIN_URL) with
--token TOKEN (or $ORRERY_REGISTRY_ADMIN_TOKEN), and the registry's own arguments:

  status | member add-learner NAME PEER_URL | member promote ID | member remove ID |
  leader transfer ID

Those calls are sent once and answer when etcd has applied them: if one times out, check
"status" before repeating it.`;

/** The flags, exported for `orrery completion`. */
export const options = {
  namespace: { type: 'string', short: 'n' },
  json: { type: 'boolean' },
  'no-wait': { type: 'boolean' },
  timeout: { type: 'string', default: '5m' },
  ...API_CONNECTION_OPTIONS,
  'admin-url': { type: 'string' },
  token: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs('registry', HELP, argv, {
    options,
    allowPositionals: true,
  });
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const [cmd, sub] = positionals;
  if (!cmd) {
    console.error(HELP);
    return 2;
  }
  const key = cmd === 'status' ? 'status' : `${cmd} ${sub ?? ''}`.trim();
  const rest = positionals.slice(cmd === 'status' ? 1 : 2);
  const unknown = () => {
    console.error(`orrery registry: unknown command "${positionals.join(' ')}"\n\n${HELP}`);
    return 2;
  };

  // Bypassing the API is never a default: only an explicit registry admin URL selects it.
  const adminUrl = values['admin-url'] ?? process.env.ORRERY_REGISTRY_ADMIN_URL;
  if (adminUrl) {
    const token = values.token ?? process.env.ORRERY_REGISTRY_ADMIN_TOKEN ?? '';
    if (!token) {
      console.error('orrery registry: no registry admin token; pass --token or set ORRERY_REGISTRY_ADMIN_TOKEN');
      return 2;
    }
    const code = await runDirect(key, rest, { baseUrl: adminUrl, token, json: values.json ?? false });
    return code === -1 ? unknown() : code;
  }

  const timeoutMs = parseDurationMs(values.timeout);
  if (!Number.isFinite(timeoutMs)) {
    console.error(`orrery registry: --timeout takes a duration like 90s or 5m, got ${JSON.stringify(values.timeout)}`);
    return 2;
  }
  const api = await requireApiClient(resolveConnection(apiConnectionFlags(values)));
  if ('error' in api) {
    console.error(`orrery registry: ${api.error}`);
    return 1;
  }
  try {
    const code = await runThroughApi(key, rest, { client: api.client, namespace: values.namespace, json: values.json ?? false, wait: !values['no-wait'], timeoutMs });
    return code === -1 ? unknown() : code;
  } catch (err) {
    console.error(`orrery registry: ${api.describeError(err)}`);
    return 1;
  }
}
