/**
 * Servers, the third wiring step of the local backend: the control server's routes (health,
 * metrics, Events, workers, the pool executor, the autoscaler; everything else is the platform's
 * APIs: the store and the admin API), then it listens and prints `listening http://HOST:PORT`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { routes, sendJson } from '@orrery/control-http';
import { createAutoscalerHandler } from '../../../autoscaler/autoscaler-http.ts';
import { createEventsHandler } from '../../../events/events-http.ts';
import { createBearerTokenGuard } from '../../../http/bearer-token-guard.ts';
import { createSpecializeHandler } from '../../../pool-executor/specialize-http.ts';
import { listeningAddress } from '../../../wiring/listening-address.ts';
import { createPackageUploadHandler } from '../package-upload-http.ts';
import type { LocalComponents } from './local-components.ts';
import type { LocalConfig } from './local-config.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => unknown;

const noRoute = (req: IncomingMessage, res: ServerResponse) => sendJson(res, 404, { error: `no route ${req.url}`, code: 'not_found' });

export function startLocalServer(config: Pick<LocalConfig, 'host' | 'port' | 'dataDir' | 'packages'>, c: LocalComponents, warn: (msg: string) => void): void {
  const handleAutoscaler = createAutoscalerHandler(c.autoscaler, {
    // Only deploy revisions the KPA scales get workers from the backend; others answer at once.
    readyAddresses: async (ns, name, ms) => {
      const rev = await c.executorView.revision(ns, name);
      return rev?.spec.template.executor === 'deploy' && c.autoscaler.isTracked(`${ns}/${name}`) ? c.backend.readyAddresses(`${ns}/${name}`, ms) : [];
    },
    firstReadyTimes: (ns, name) => c.backend.firstReadyTimes(`${ns}/${name}`),
  });
  const handleSpecialize = createSpecializeHandler({ view: c.executorView, pool: c.pool, credentials: (fn) => c.operator.credentials(fn) });
  const handleEvents = createEventsHandler(c.eventLog);
  // Package archives (docs/packages.md): the store token or an operator-role login, as creating a Function.
  const handlePackages = createPackageUploadHandler({ dataDir: config.dataDir, storeToken: c.storeToken, services: c.platformApi.services, maxArchiveBytes: config.packages.maxArchiveBytes });
  // Pokes, stats, specializations, Events and the worker list carry the store token too (the
  // router has it for the store): worker addresses, pids and what went wrong are for the platform's own tools.
  const authorized = createBearerTokenGuard(c.storeToken);
  const guarded = (handler: Handler) => async (req: IncomingMessage, res: ServerResponse) => {
    if (authorized(req, res)) await handler(req, res);
  };

  const table = routes(
    [
      { path: '/healthz', handler: (_req, res) => sendJson(res, 200, { ok: true }) },
      { path: '/metrics', handler: (req, res) => c.metrics.respond(req, res) },
      { path: '/v1/events', handler: guarded(handleEvents) },
      { path: '/v1/workers', handler: guarded((_req, res) => sendJson(res, 200, { endpoints: c.backend.endpoints(), pids: [...c.backend.workerPids(), ...c.pool.workerPids()], pool: { specializations: c.pool.specializations, warm: c.pool.warmCounts() } })) },
      {
        path: '/v1/executor/*',
        handler: guarded(async (req, res) => {
          if (!(await handleSpecialize(req, res))) noRoute(req, res);
        }),
      },
      { path: '/v1/autoscaler/*', handler: guarded(handleAutoscaler) },
    ],
    // Package uploads (/v1/packages/), the resource store (/v1/store/) and the admin API (/trpc/).
    {
      notFound: async (req, res) => {
        if (await handlePackages(req, res)) return;
        if (!(await c.platformApi.handle(req, res))) noRoute(req, res);
      },
    },
  );
  c.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    table(req, res).catch((err: unknown) => {
      warn(`${req.method} ${req.url}: ${(err as Error).message}`);
      sendJson(res, 500, { error: 'internal error', code: 'internal' });
    });
  });
  c.server.listen(config.port, config.host, () => process.stdout.write(`listening ${listeningAddress(c.server).url}\n`));
}
