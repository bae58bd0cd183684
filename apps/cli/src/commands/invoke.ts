import { readFileSync } from 'node:fs';
import { resolveConnection } from '../connection/resolve-connection.ts';
import { buildInvocation } from '../resources/invocation.ts';
import { parseCommandArgs } from './command-args.ts';
import { openKubeRouter } from '../kubernetes/kube-router.ts';
import { DEFAULT_ORRERY_NAMESPACE } from '../kubernetes/operator-service.ts';

export const summary = 'call a function through the router (--data, --header K:V, --tag, --path)';

const HELP = `usage: orrery invoke <function> [-n namespace] [--data D | --data @file] [--header K:V …]
       [--tag T] [--path /x] [-X METHOD] [-i] [--router-url URL]
       [--kubeconfig FILE] [--context NAME] [--orrery-namespace NS]

Sends one request to the function through the router (\`<router>/<namespace>/<function><path>\`)
and prints the response body. --tag sets \`Orrery-Tag\` (reach a tagged revision whatever its
percent); the method is POST with --data, else GET; -i also prints the status and headers.
Exit status 1 on a non-2xx answer. Router: --router-url, $ORRERY_ROUTER_URL, routerUrl from
.orrery/platform.json, else http://127.0.0.1:8080.
Kubernetes: with --kubeconfig FILE and/or --context NAME (or $KUBECONFIG, or in a pod its
service account, when no local platform is found and no --router-url is given) the request goes
to the release's router Service in --orrery-namespace NS (or $ORRERY_NAMESPACE; default
${DEFAULT_ORRERY_NAMESPACE}) through the API server's services proxy, as the kubeconfig's user:
no port-forward. RBAC: get (GET) or create (other methods) on services/proxy there.`;

/** The flags, exported for `orrery completion`. */
export const options = {
  namespace: { type: 'string', short: 'n' },
  data: { type: 'string', short: 'd' },
  header: { type: 'string', short: 'H', multiple: true },
  tag: { type: 'string' },
  path: { type: 'string' },
  request: { type: 'string', short: 'X' },
  include: { type: 'boolean', short: 'i' },
  'router-url': { type: 'string' },
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
  'orrery-namespace': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs('invoke', HELP, argv, {
    options,
    allowPositionals: true,
  });
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  if (positionals.length !== 1) {
    console.error(`orrery invoke: name exactly one function\n\n${HELP}`);
    return 2;
  }
  let data = values.data;
  if (data?.startsWith('@')) {
    try {
      data = readFileSync(data.slice(1), 'utf8');
    } catch (err) {
      console.error(`orrery invoke: cannot read ${data.slice(1)}: ${(err as Error).message}`);
      return 2;
    }
  }
  const conn = resolveConnection({ routerUrl: values['router-url'], kubeconfig: values.kubeconfig, context: values.context, orreryNamespace: values['orrery-namespace'] });
  // An explicit router URL beats a cluster found by kubeconfig (kube-target.ts: explicit first).
  const kube = values['router-url'] === undefined ? conn.kube : undefined;
  const router = kube ? await openKubeRouter(kube, conn.orreryNamespace) : undefined;
  if (router && 'error' in router) {
    console.error(`orrery invoke: ${router.error}`);
    return 1;
  }
  const built = buildInvocation({ routerUrl: router?.base ?? conn.routerUrl, function: positionals[0]!, namespace: values.namespace ?? 'default', path: values.path, data, headers: values.header ?? [], tag: values.tag, method: values.request });
  if (!built.ok) {
    console.error(`orrery invoke: ${built.error}`);
    return 2;
  }
  let res: Response;
  let body: Buffer;
  if (router) {
    const sent = await router.send(built.url, built.init);
    if (sent.refusal) {
      console.error(`orrery invoke: ${sent.refusal}`);
      return 1;
    }
    ({ res, body } = sent);
  } else {
    try {
      res = await fetch(built.url, built.init);
    } catch (err) {
      console.error(`orrery invoke: router at ${conn.routerUrl} unreachable (${(err as Error).message}) — is the platform running? Set --router-url or ORRERY_ROUTER_URL.`);
      return 1;
    }
    body = Buffer.from(await res.arrayBuffer());
  }
  if (values.include) {
    process.stdout.write(`HTTP ${res.status} ${res.statusText}\n`);
    res.headers.forEach((v, k) => process.stdout.write(`${k}: ${v}\n`));
    process.stdout.write('\n');
  }
  process.stdout.write(body);
  if (body.length > 0 && body[body.length - 1] !== 0x0a && process.stdout.isTTY) process.stdout.write('\n');
  if (!res.ok) {
    if (!values.include) console.error(`orrery invoke: the function answered ${res.status} ${res.statusText}`);
    return 1;
  }
  return 0;
}
