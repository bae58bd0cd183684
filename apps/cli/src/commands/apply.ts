import { isResourceKind } from '@orrery/spec';
import { StoreError } from '@orrery/store';
import { CONNECTION_HELP, CONNECTION_OPTIONS, connectionFlags, resolveConnection } from '../connection/resolve-connection.ts';
import { openStore } from '../connection/open-store.ts';
import { qualifiedName } from '../resources/kind-names.ts';
import { loadManifests } from '../resources/manifests.ts';
import { describeStoreError } from '../resources/store-errors.ts';
import { parseCommandArgs } from './command-args.ts';

export const summary = 'create or update resources from manifests (-f <file|dir|-> …)';

const HELP = `usage: orrery apply -f <file|dir|-> [-f …] [-n namespace] [--force-conflicts]

Validates every document first (the rules of \`orrery validate\`); when all are valid, applies
each through the resource store and prints, per object,

  function.orrery.dev/counter created|configured|unchanged

-f - reads the manifests from stdin (e.g. \`helm template … | orrery apply -f -\`).
Objects without metadata.namespace go to -n (default "default"). Revisions are made by the
operator and cannot be applied. On Kubernetes the apply is a server-side apply: a field another
field manager owns (kubectl, a GitOps controller) is a conflict naming the field and its owner,
unless --force-conflicts takes it over (as kubectl apply --server-side --force-conflicts).
Exit status: 0 when everything applied, 1 otherwise.
${CONNECTION_HELP}`;

/** The flags, exported for `orrery completion`. */
export const options = { file: { type: 'string', short: 'f', multiple: true }, namespace: { type: 'string', short: 'n' }, 'force-conflicts': { type: 'boolean' }, ...CONNECTION_OPTIONS, help: { type: 'boolean', short: 'h' } } as const;

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs('apply', HELP, argv, {
    options,
  });
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  if (!values.file?.length) {
    console.error(`orrery apply: name at least one file or directory with -f\n\n${HELP}`);
    return 2;
  }
  const loaded = loadManifests(values.file);
  if (!loaded.ok) {
    for (const e of loaded.errors) console.error(e);
    console.error('orrery apply: nothing applied (fix the problems above first)');
    return 1;
  }
  const conn = resolveConnection(connectionFlags(values));
  const { store, where } = openStore(conn);
  let failed = 0;
  for (const obj of loaded.objects) {
    const namespace = obj.metadata.namespace ?? values.namespace ?? 'default';
    const doc = { ...obj, metadata: { ...obj.metadata, namespace } };
    const name = qualifiedName(obj.kind, obj.metadata.name);
    try {
      if (!isResourceKind(obj.kind)) throw new Error(`unknown kind ${obj.kind}`);
      const { outcome } = await store.apply(doc, { force: values['force-conflicts'] === true });
      console.log(`${name} ${outcome}`);
    } catch (err) {
      failed++;
      console.error(`${name}: ${err instanceof StoreError ? describeStoreError(err, where) : (err as Error).message}`);
      if (err instanceof StoreError && err.code === 'unavailable') break; // the rest would fail the same way
    }
  }
  return failed > 0 ? 1 : 0;
}
