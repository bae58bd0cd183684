import type { Resource } from '@orrery/spec';
import { StoreError } from '@orrery/store';
import { stringify } from 'yaml';
import { CONNECTION_HELP, CONNECTION_OPTIONS, connectionFlags, resolveConnection } from '../connection/resolve-connection.ts';
import { openStore } from '../connection/open-store.ts';
import { KIND_CHOICES, kindFromName, qualifiedName } from '../resources/kind-names.ts';
import { describeStoreError } from '../resources/store-errors.ts';
import { renderTable } from '../resources/tables.ts';
import { parseCommandArgs } from './command-args.ts';

export const summary = `list or show resources (${KIND_CHOICES}) as a table, YAML, JSON or names`;

const HELP = `usage: orrery get <${KIND_CHOICES}> [name] [-n namespace | -A] [-l key=value] [-o table|wide|yaml|json|name]

Without a name, lists the kind in the namespace (default "default"; -A for all). Tables show
READY (the Ready condition), per kind: functions LATEST (ready revision), URL, TRAFFIC
(tag:revision=percent); revisions FUNCTION, WORKERS (ready/desired); and AGE (since
metadata.creationTimestamp: 5s, 3m, 2h, 4d). -o wide adds how each object runs (functions and
revisions: ENVIRONMENT, EXECUTOR, CONCURRENCY, SCALE min:max, …). -o yaml|json prints the
stored objects (a list as {items: […]}); -o name one kind.orrery.dev/name per line.
${CONNECTION_HELP}`;

/** The flags, exported for `orrery completion`. */
export const options = {
  namespace: { type: 'string', short: 'n' },
  'all-namespaces': { type: 'boolean', short: 'A' },
  selector: { type: 'string', short: 'l', multiple: true },
  output: { type: 'string', short: 'o', default: 'table' },
  ...CONNECTION_OPTIONS,
  help: { type: 'boolean', short: 'h' },
} as const;

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs('get', HELP, argv, {
    options,
    allowPositionals: true,
  });
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const [kindName, name, ...extra] = positionals;
  const kind = kindName ? kindFromName(kindName) : undefined;
  if (!kind || extra.length > 0) {
    console.error(`orrery get: ${kindName ? (kind ? 'at most one name' : `unknown kind "${kindName}"`) : 'name a kind'}; kinds: ${KIND_CHOICES}\n\n${HELP}`);
    return 2;
  }
  const output = values.output;
  if (output !== 'table' && output !== 'yaml' && output !== 'json' && output !== 'wide' && output !== 'name') {
    console.error(`orrery get: -o must be table, wide, yaml, json or name, got ${JSON.stringify(output)}`);
    return 2;
  }
  const labels: Record<string, string> = {};
  for (const s of values.selector ?? []) {
    const i = s.indexOf('=');
    if (i <= 0) {
      console.error(`orrery get: -l takes key=value, got ${JSON.stringify(s)}`);
      return 2;
    }
    labels[s.slice(0, i)] = s.slice(i + 1);
  }
  const namespace = values['all-namespaces'] ? undefined : (values.namespace ?? 'default');
  const conn = resolveConnection(connectionFlags(values));
  const { store, where } = openStore(conn);
  let items: Resource[];
  try {
    if (name) {
      const one = await store.get(kind, namespace ?? 'default', name);
      if (!one) {
        console.error(`orrery get: ${kind.toLowerCase()} "${name}" not found in namespace ${namespace ?? 'default'}`);
        return 1;
      }
      items = [one];
    } else {
      items = (await store.list(kind, { namespace, labels: Object.keys(labels).length > 0 ? labels : undefined })).items;
    }
  } catch (err) {
    console.error(`orrery get: ${err instanceof StoreError ? describeStoreError(err, where) : (err as Error).message}`);
    return 1;
  }
  items.sort((a, b) => a.metadata.namespace.localeCompare(b.metadata.namespace) || a.metadata.name.localeCompare(b.metadata.name));
  const shown = name ? items[0] : { apiVersion: 'v1', kind: 'List', items };
  if (output === 'json') process.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
  else if (output === 'yaml') process.stdout.write(stringify(shown));
  else if (output === 'name') process.stdout.write(items.map((i) => `${qualifiedName(i.kind, i.metadata.name)}\n`).join(''));
  else if (items.length === 0) console.error(`No ${kindName} found${namespace ? ` in namespace ${namespace}` : ''}.`);
  else process.stdout.write(renderTable(items, { showNamespace: !namespace, wide: output === 'wide', now: new Date() }));
  return 0;
}
