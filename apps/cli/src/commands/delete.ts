import { isResourceKind, type ResourceKind } from '@orrery/spec';
import { StoreError } from '@orrery/store';
import { CONNECTION_HELP, CONNECTION_OPTIONS, connectionFlags, resolveConnection } from '../connection/resolve-connection.ts';
import { openStore } from '../connection/open-store.ts';
import { KIND_CHOICES, kindFromName, qualifiedName } from '../resources/kind-names.ts';
import { loadManifests } from '../resources/manifests.ts';
import { describeStoreError } from '../resources/store-errors.ts';
import { parseCommandArgs } from './command-args.ts';

export const summary = 'delete resources by kind and name, or those in manifests (-f)';

const HELP = `usage: orrery delete <${KIND_CHOICES}> <name> [name …] [-n namespace]
       orrery delete -f <file|dir|-> [-f …] [-n namespace]

Deleting a Function deletes its revisions and stops their workers (the operator does it).
Prints "function.orrery.dev/NAME deleted" per object; a missing object is reported and makes
the exit status 1 unless --ignore-not-found.
${CONNECTION_HELP}`;

/** The flags, exported for `orrery completion`. */
export const options = {
  file: { type: 'string', short: 'f', multiple: true },
  namespace: { type: 'string', short: 'n' },
  'ignore-not-found': { type: 'boolean' },
  ...CONNECTION_OPTIONS,
  help: { type: 'boolean', short: 'h' },
} as const;

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs('delete', HELP, argv, {
    options,
    allowPositionals: true,
  });
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const targets: Array<{ kind: ResourceKind; namespace: string; name: string }> = [];
  const defaultNs = values.namespace ?? 'default';
  if (values.file?.length) {
    if (positionals.length > 0) {
      console.error('orrery delete: give either -f or <kind> <name>, not both');
      return 2;
    }
    const loaded = loadManifests(values.file);
    if (!loaded.ok) {
      for (const e of loaded.errors) console.error(e);
      return 1;
    }
    for (const o of loaded.objects.reverse()) {
      if (isResourceKind(o.kind)) targets.push({ kind: o.kind, namespace: o.metadata.namespace ?? defaultNs, name: o.metadata.name });
    }
  } else {
    const [kindName, ...names] = positionals;
    const kind = kindName ? kindFromName(kindName) : undefined;
    if (!kind || names.length === 0) {
      console.error(`orrery delete: ${kind || !kindName ? 'name a kind and at least one object' : `unknown kind "${kindName}"`}\n\n${HELP}`);
      return 2;
    }
    for (const name of names) targets.push({ kind, namespace: defaultNs, name });
  }
  const conn = resolveConnection(connectionFlags(values));
  const { store, where } = openStore(conn);
  let failed = 0;
  for (const t of targets) {
    const label = qualifiedName(t.kind, t.name);
    try {
      if (await store.delete(t.kind, t.namespace, t.name)) console.log(`${label} deleted`);
      else {
        if (!values['ignore-not-found']) failed++;
        console.error(`${label} not found in namespace ${t.namespace}`);
      }
    } catch (err) {
      failed++;
      console.error(`${label}: ${err instanceof StoreError ? describeStoreError(err, where) : (err as Error).message}`);
      if (err instanceof StoreError && err.code === 'unavailable') break;
    }
  }
  return failed > 0 ? 1 : 0;
}
