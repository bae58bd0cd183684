import { requireApiClient } from '../connection/api-client.ts';
import { API_CONNECTION_HELP, API_CONNECTION_OPTIONS, apiConnectionFlags, resolveConnection } from '../connection/resolve-connection.ts';
import { revisionName } from '../functions/revision-arg.ts';
import { formatTraffic } from '../functions/traffic-notation.ts';
import { parseObjectRef } from '../resources/object-ref-arg.ts';
import { parseCommandArgs } from './command-args.ts';

export const summary = 'send 100 % of a function\'s traffic to one revision: rollback [ns/]fn REVISION';

const HELP = `usage: orrery rollback [namespace/]function REVISION [-n namespace]

Sends all traffic of the function to REVISION (its name, e.g. counter-00001, or just its
number, 1) and drops the other targets and their tags — the console's "Roll back to this".
Goes through the admin API (functions.rollback: role operator, audited) and prints the split
before → after. \`orrery get revisions\` lists the revisions.
${API_CONNECTION_HELP}`;

/** The flags, exported for `orrery completion`. */
export const options = { namespace: { type: 'string', short: 'n' }, ...API_CONNECTION_OPTIONS, help: { type: 'boolean', short: 'h' } } as const;

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs('rollback', HELP, argv, {
    options,
    allowPositionals: true,
  });
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  if (positionals.length !== 2) {
    console.error(`orrery rollback: give the function and the revision\n\n${HELP}`);
    return 2;
  }
  const ref = parseObjectRef(positionals[0]!, values.namespace);
  if ('error' in ref) {
    console.error(`orrery rollback: ${ref.error}`);
    return 2;
  }
  const revision = revisionName(ref.name, positionals[1]!);
  const api = await requireApiClient(resolveConnection(apiConnectionFlags(values)));
  if ('error' in api) {
    console.error(`orrery rollback: ${api.error}`);
    return 1;
  }
  try {
    const before = await api.client.functions.get.query(ref);
    const after = await api.client.functions.rollback.mutate({ ...ref, revision, generation: before.metadata.generation });
    console.log(`function.orrery.dev/${ref.name} rolled back to ${revision}: ${formatTraffic(before.spec.traffic)} → ${formatTraffic(after.spec.traffic)}`);
    return 0;
  } catch (err) {
    console.error(`orrery rollback: ${ref.namespace}/${ref.name}: ${api.describeError(err)}`);
    return 1;
  }
}
