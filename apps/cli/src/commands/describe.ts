import { FUNCTION_LABEL, FunctionSchema, RevisionSchema } from '@orrery/spec';
import { StoreError } from '@orrery/store';
import { CONNECTION_HELP, CONNECTION_OPTIONS, connectionFlags, resolveConnection } from '../connection/resolve-connection.ts';
import { openStore } from '../connection/open-store.ts';
import { describeFunction } from '../describe/function-description.ts';
import { localEvents } from '../describe/local-events.ts';
import { lastWorkerErrors, type WorkerLine } from '../describe/worker-errors.ts';
import { functionLogDir, listLogFiles, readNewLines } from '../logs/worker-logs.ts';
import { kindFromName } from '../resources/kind-names.ts';
import { describeStoreError } from '../resources/store-errors.ts';
import { parseCommandArgs } from './command-args.ts';

export const summary = "show a function in detail: revisions, traffic, conditions, events, worker errors";

const HELP = `usage: orrery describe function NAME [-n namespace] [--data-dir DIR]

Prints the function (URL, template, state), its traffic split as written and as served, its
revisions (ready, workers ready/desired, age, traffic percent, tags), its conditions with their
reasons and messages and since when they hold (and those of every revision that is not ready),
recent Events about it and its revisions (Kubernetes' Events; the local operator's, read with
the store token from <data-dir>/secrets/store.token), and the
last errors in its workers' logs (the local platform: <data-dir>/logs, as \`orrery logs\`).
${CONNECTION_HELP}`;

/** The flags, exported for `orrery completion`. */
export const options = {
  namespace: { type: 'string', short: 'n' },
  'data-dir': { type: 'string' },
  ...CONNECTION_OPTIONS,
  help: { type: 'boolean', short: 'h' },
} as const;

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs('describe', HELP, argv, { options, allowPositionals: true });
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const [kindName, name, ...extra] = positionals;
  if (!kindName || kindFromName(kindName) !== 'Function' || !name || extra.length > 0) {
    const why = !kindName || !name ? 'name the function: orrery describe function NAME' : extra.length > 0 ? 'one function at a time' : `describe shows functions; for ${kindName} use \`orrery get ${kindName} NAME -o yaml\``;
    console.error(`orrery describe: ${why}\n\n${HELP}`);
    return 2;
  }
  const namespace = values.namespace ?? 'default';
  const conn = resolveConnection(connectionFlags(values));
  const { store, where, via } = openStore(conn);
  try {
    const stored = await store.get('Function', namespace, name);
    if (!stored) {
      console.error(`orrery describe: function "${name}" not found in namespace ${namespace}`);
      return 1;
    }
    const fn = FunctionSchema.parse(stored);
    const revisions = (await store.list('Revision', { namespace, labels: { [FUNCTION_LABEL]: name } })).items.map((r) => RevisionSchema.parse(r));
    const revisionNames = revisions.map((r) => r.metadata.name);
    const events = store.events ? await store.events(namespace, [name, ...revisionNames]) : await localEvents(via === 'api' ? conn.apiUrl : conn.storeUrl, conn.storeToken, namespace, name, revisionNames);
    const workerErrors = store.workerLogLines ? lastWorkerErrors(await store.workerLogLines(namespace, name)) : localWorkerErrors(conn.dataDir, namespace, name);
    process.stdout.write(describeFunction({ fn, revisions, events, workerErrors, now: new Date() }));
    return 0;
  } catch (err) {
    console.error(`orrery describe: ${err instanceof StoreError ? describeStoreError(err, where) : (err as Error).message}`);
    return 1;
  } finally {
    await store.close();
  }
}

/** The local platform's worker logs, read from its data directory (as `orrery logs` does). */
function localWorkerErrors(dataDir: string, namespace: string, name: string) {
  const files = listLogFiles(functionLogDir(dataDir, namespace, name));
  if (files.length === 0) return { unavailable: `no worker logs under ${functionLogDir(dataDir, namespace, name)} (not run yet, or another --data-dir)` };
  const lines: WorkerLine[] = files.flatMap((f) => readNewLines(f.path, 0).lines.map((line) => ({ worker: f.worker, line })));
  return lastWorkerErrors(lines);
}
