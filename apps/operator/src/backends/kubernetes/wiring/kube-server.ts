/**
 * The Kubernetes backend's HTTP server on every replica: /metrics, /healthz and /readyz, the
 * control endpoints (KPA stats and pokes, pool specializations: forwarded to the leader, which
 * runs the KPA and the pool executor), and the platform's APIs for everything else. It listens
 * before the elected operator exists, since the URL followers forward to needs its port; the
 * routes are attached in the same turn, before any request can arrive.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { hostname } from 'node:os';
import { routes, sendJson } from '@orrery/control-http';
import { createBearerTokenGuard } from '../../../http/bearer-token-guard.ts';
import type { PlatformApi } from '../../../http/platform-api.ts';
import type { OperatorMetrics } from '../../../metrics/operator-metrics.ts';
import { listeningAddress } from '../../../wiring/listening-address.ts';
import type { ElectedOperator } from '../elected-operator.ts';
import { createLeaderForwarding } from '../leader-forwarding.ts';
import type { KubeOperatorConfig } from './kube-config.ts';

export async function listenKubeServer(config: Pick<KubeOperatorConfig, 'host' | 'port'>): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  return server;
}

/** --advertise-url, else http://$POD_IP:<port>, else this host (the host name when bound to every address). */
export function advertisedUrl(config: Pick<KubeOperatorConfig, 'advertiseUrl'>, server: Server): string {
  const { address, host, port } = listeningAddress(server);
  return config.advertiseUrl ?? `http://${process.env.POD_IP || (address === '0.0.0.0' || address === '::' ? hostname() : host)}:${port}`;
}

export interface KubeServerParts {
  identity: string;
  /** The store's bearer token: the control endpoints take it too, as in local mode. */
  storeToken: string | undefined;
  metrics: OperatorMetrics;
  elected: ElectedOperator;
  platformApi: PlatformApi;
  warn: (msg: string) => void;
}

export function serveKubeRoutes(server: Server, p: KubeServerParts): void {
  const authorized = createBearerTokenGuard(p.storeToken);
  // The KPA (and the pool executor) run on the leader; routers may reach any replica.
  const toLeader = createLeaderForwarding({ identity: p.identity, local: () => p.elected.control, leaderUrl: () => p.elected.leaderUrl });
  const forwarded = async (req: IncomingMessage, res: ServerResponse) => {
    if (authorized(req, res)) await toLeader(req, res);
  };
  const health = (_req: IncomingMessage, res: ServerResponse) => sendJson(res, 200, { ok: true, identity: p.identity, leader: p.elected.isLeader });
  const table = routes(
    [
      { path: '/metrics', handler: (req, res) => p.metrics.respond(req, res) },
      { path: '/healthz', handler: health },
      { path: '/readyz', handler: health },
      { path: '/v1/autoscaler/*', handler: forwarded },
      { path: '/v1/executor/*', handler: forwarded },
    ],
    // The resource store (/v1/store/) and the admin API (/trpc/).
    {
      notFound: async (req, res) => {
        if (!(await p.platformApi.handle(req, res))) sendJson(res, 404, { error: `no route ${req.url}`, code: 'not_found' });
      },
    },
  );
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    table(req, res).catch((err: unknown) => {
      p.warn(`${req.method} ${req.url}: ${(err as Error).message}`);
      sendJson(res, 500, { error: 'internal error', code: 'internal' });
    });
  });
}
