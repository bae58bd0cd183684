import { requireApiClient } from '../connection/api-client.ts';
import { API_CONNECTION_HELP, API_CONNECTION_OPTIONS, apiConnectionFlags, resolveConnection } from '../connection/resolve-connection.ts';
import { formatTraffic, parseTraffic } from '../functions/traffic-notation.ts';
import { parseObjectRef } from '../resources/object-ref-arg.ts';
import { parseCommandArgs } from './command-args.ts';

export const summary = "set a function's traffic split: traffic set [ns/]fn rev=50,rev2=50";

const HELP = `usage: orrery traffic set [namespace/]function TARGET[,TARGET…] [-n namespace]

TARGET is [tag:]revision=percent — what \`orrery get functions\` prints under TRAFFIC, so a
printed split can be pasted back. Percents sum to 100; "latest" is the latest ready revision;
a tag makes its revision reachable with the header Orrery-Tag whatever its percent:

  orrery traffic set default/canary canary-00001=50,canary-00002=50
  orrery traffic set canary canary-00001=100 next:canary-00002=0

Replaces spec.traffic through the admin API (functions.traffic.set: role operator, audited,
validated like the webhook) and prints the split before → after. The write carries the
generation it read, so a concurrent change of the spec is refused (retry) rather than overwritten;
the operator's status updates in between do not count.
${API_CONNECTION_HELP}`;

/** The flags, exported for `orrery completion`. */
export const options = { namespace: { type: 'string', short: 'n' }, ...API_CONNECTION_OPTIONS, help: { type: 'boolean', short: 'h' } } as const;

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs('traffic', HELP, argv, {
    options,
    allowPositionals: true,
  });
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const [sub, fnArg, ...targetArgs] = positionals;
  if (sub !== 'set' || !fnArg) {
    console.error(`orrery traffic: ${sub && sub !== 'set' ? `unknown sub-command "${sub}"` : 'name the function'}\n\n${HELP}`);
    return 2;
  }
  const ref = parseObjectRef(fnArg, values.namespace);
  if ('error' in ref) {
    console.error(`orrery traffic: ${ref.error}`);
    return 2;
  }
  const traffic = parseTraffic(targetArgs);
  if ('error' in traffic) {
    console.error(`orrery traffic: ${traffic.error}`);
    return 2;
  }
  const api = await requireApiClient(resolveConnection(apiConnectionFlags(values)));
  if ('error' in api) {
    console.error(`orrery traffic: ${api.error}`);
    return 1;
  }
  try {
    const before = await api.client.functions.get.query(ref);
    const after = await api.client.functions.traffic.set.mutate({ ...ref, traffic: traffic.targets, generation: before.metadata.generation });
    console.log(`function.orrery.dev/${ref.name} traffic: ${formatTraffic(before.spec.traffic)} → ${formatTraffic(after.spec.traffic)}`);
    return 0;
  } catch (err) {
    console.error(`orrery traffic: ${ref.namespace}/${ref.name}: ${api.describeError(err)}`);
    return 1;
  }
}
