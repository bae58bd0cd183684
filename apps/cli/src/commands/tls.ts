import { DOMAIN_HOST_PATTERN } from '@orrery/spec';
import { resolveConnection } from '../connection/resolve-connection.ts';
import { parseSecretName, setLocalSecret } from '../secrets/local-secret-store.ts';
import { ensureDevCa, issueDevCertificate, MAX_LEAF_DAYS, trustInstructions } from '../tls/dev-ca.ts';
import { parseCommandArgs } from './command-args.ts';

export const summary = 'development TLS for custom domains: a local CA (dev-ca) and certificates it signs (cert), stored as local Secrets';

const HELP = `usage: orrery tls dev-ca [--data-dir DIR]
       orrery tls cert HOST [HOST…] [--secret [NAMESPACE/]NAME] [-n NAMESPACE] [--days 90]

For spec.domains on the local platform (docs/domains.md). dev-ca makes the data dir's development
CA once (<data-dir>/tls/dev-ca.crt, its key 0600 beside it) and prints how to trust it. cert signs
a certificate for the hosts with it (making the CA first if needed) and stores it as the local
Secret a Function's tls.secretName names: keys tls.crt and tls.key, as a Kubernetes Secret of
type kubernetes.io/tls holds them. The secret defaults to <first label of the first host>-tls in
namespace default. The operator notices the change and the routers serve it at once.

  orrery tls cert hello.localtest.me            # → local Secret default/hello-tls
  curl --cacert .orrery/tls/dev-ca.crt https://hello.localtest.me:8090/

On Kubernetes use a real certificate (cert-manager, your CA) in a Secret of type kubernetes.io/tls.
The data directory: --data-dir, $ORRERY_DATA_DIR, dataDir from .orrery/platform.json, else ./.orrery.`;

/** The flags, exported for \`orrery completion\`. */
export const options = {
  secret: { type: 'string' },
  namespace: { type: 'string', short: 'n' },
  days: { type: 'string' },
  'data-dir': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** `hello-tls` for hello.localtest.me: what the example names. */
export function defaultSecretName(host: string): string {
  return `${host.slice(0, host.indexOf('.'))}-tls`;
}

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs('tls', HELP, argv, { options, allowPositionals: true });
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const [verb, ...rest] = positionals;
  const fail = (msg: string) => {
    console.error(`orrery tls: ${msg}\n\n${HELP}`);
    return 2;
  };
  const { dataDir } = resolveConnection({ dataDir: values['data-dir'] });
  if (verb === 'dev-ca') {
    if (rest.length) return fail(`dev-ca takes no arguments, got ${rest.join(' ')}`);
    const ca = await ensureDevCa(dataDir);
    console.log(`${ca.created ? 'made' : 'kept'} the development CA ${ca.certFile} (valid until ${ca.notAfter.toISOString().slice(0, 10)})`);
    console.log(trustInstructions(ca.certFile));
    return 0;
  }
  if (verb === 'cert') {
    if (rest.length === 0) return fail('cert needs at least one HOST');
    const hosts = rest.map((h) => h.toLowerCase());
    const bad = hosts.find((h) => h.length > 253 || !DOMAIN_HOST_PATTERN.test(h));
    if (bad) return fail(`"${bad}" is not a fully qualified host name (e.g. hello.localtest.me; no wildcard, port or IP address)`);
    const days = values.days === undefined ? 90 : Number(values.days);
    if (!Number.isInteger(days) || days < 1 || days > MAX_LEAF_DAYS) return fail(`--days must be a whole number from 1 to ${MAX_LEAF_DAYS}`);
    let secret;
    try {
      secret = parseSecretName(values.secret ?? defaultSecretName(hosts[0]!), values.namespace);
    } catch (err) {
      return fail((err as Error).message);
    }
    const ca = await ensureDevCa(dataDir);
    if (ca.created) console.log(`made the development CA ${ca.certFile}`);
    const leaf = await issueDevCertificate(ca, hosts, { days });
    setLocalSecret(dataDir, secret, 'tls.key', leaf.keyPem);
    setLocalSecret(dataDir, secret, 'tls.crt', leaf.certPem);
    console.log(`certificate for ${hosts.join(', ')} (serial ${leaf.serialNumber}, until ${leaf.notAfter.toISOString()}) stored as local Secret ${secret.namespace}/${secret.name} (tls.crt, tls.key)`);
    console.log(`use it: spec.domains: [{host: ${hosts[0]}, tls: {secretName: ${secret.name}}}] on a Function in namespace ${secret.namespace}`);
    if (ca.created) console.log(trustInstructions(ca.certFile));
    return 0;
  }
  return fail(verb ? `unknown verb ${verb}` : 'say dev-ca or cert');
}
