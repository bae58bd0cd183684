import { resolveConnection } from '../connection/resolve-connection.ts';
import { deleteLocalSecret, listLocalSecretKeys, listLocalSecrets, parseSecretName, setLocalSecret } from '../secrets/local-secret-store.ts';
import { parseCommandArgs } from './command-args.ts';

export const summary = 'local Secrets for valueFrom.secretKeyRef: set (value from stdin), list, delete';

const HELP = `usage: orrery secret set [NAMESPACE/]NAME KEY [--keep-newline] < value
       orrery secret list [NAMESPACE/]NAME | -n NAMESPACE
       orrery secret delete [NAMESPACE/]NAME [KEY]

The local platform's stand-in for a Kubernetes Secret: a Function's env entry
  env: [{name: API_KEY, valueFrom: {secretKeyRef: {name: shop-keys, key: api-key}}}]
reads <data-dir>/secrets/<namespace>/shop-keys/api-key when a worker starts. The value is read
from stdin (one trailing newline is dropped unless --keep-newline), never from a flag, and
stored mode 0600 in folders 0700; list shows keys, never values. Workers started before a
change keep the old value until they restart (a new revision, scale to zero, or a restart).
On Kubernetes use a real Secret: kubectl create secret generic shop-keys --from-file=api-key=…

  printf '%s' "$STRIPE_KEY" | orrery secret set shop/shop-keys api-key

The data directory: --data-dir, $ORRERY_DATA_DIR, dataDir from .orrery/platform.json, else ./.orrery.`;

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Drops one trailing "\n" or "\r\n" (what echo and a terminal add). */
export function withoutTrailingNewline(b: Buffer): Buffer {
  if (b.length && b[b.length - 1] === 0x0a) return b.subarray(0, b.length >= 2 && b[b.length - 2] === 0x0d ? b.length - 2 : b.length - 1);
  return b;
}

/** The flags, exported for `orrery completion`. */
export const options = {
  namespace: { type: 'string', short: 'n' },
  'data-dir': { type: 'string' },
  'keep-newline': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs('secret', HELP, argv, {
    options,
    allowPositionals: true,
  });
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const [verb, target, key, ...extra] = positionals;
  const fail = (msg: string) => {
    console.error(`orrery secret: ${msg}\n\n${HELP}`);
    return 2;
  };
  if (extra.length) return fail(`unexpected ${extra.join(' ')}`);
  const { dataDir } = resolveConnection({ dataDir: values['data-dir'] });
  try {
    if (verb === 'set') {
      if (!target || !key) return fail('set needs [NAMESPACE/]NAME and KEY (the value comes from stdin)');
      if (process.stdin.isTTY) console.error('orrery secret: reading the value from stdin (end with Ctrl-D)…');
      const raw = await readStdin();
      const value = values['keep-newline'] ? raw : withoutTrailingNewline(raw);
      const s = parseSecretName(target, values.namespace);
      setLocalSecret(dataDir, s, key, value);
      console.log(`secret ${s.namespace}/${s.name} key ${key} set (${value.length} bytes)`);
      return 0;
    }
    if (verb === 'list') {
      if (key) return fail('list takes one [NAMESPACE/]NAME');
      if (!target) {
        for (const name of listLocalSecrets(dataDir, values.namespace ?? 'default')) console.log(name);
        return 0;
      }
      const s = parseSecretName(target, values.namespace);
      const keys = listLocalSecretKeys(dataDir, s);
      if (!keys.length) {
        console.error(`orrery secret: no secret ${s.namespace}/${s.name} in ${dataDir}`);
        return 1;
      }
      for (const k of keys) console.log(k);
      return 0;
    }
    if (verb === 'delete') {
      if (!target) return fail('delete needs [NAMESPACE/]NAME [KEY]');
      const s = parseSecretName(target, values.namespace);
      if (!deleteLocalSecret(dataDir, s, key)) {
        console.error(`orrery secret: nothing to delete: ${s.namespace}/${s.name}${key ? ` key ${key}` : ''}`);
        return 1;
      }
      console.log(`secret ${s.namespace}/${s.name}${key ? ` key ${key}` : ''} deleted`);
      return 0;
    }
    return fail(verb ? `unknown verb "${verb}"` : 'give a verb: set, list or delete');
  } catch (err) {
    if (err instanceof TypeError) return fail(err.message);
    throw err;
  }
}
