/**
 * orrery-router: the data plane. Prints `listening http://HOST:PORT admin http://HOST:PORT`
 * when ready; SIGTERM/SIGINT close listeners and let in-flight requests finish.
 * Config → shared tables and tracing → the router (wiring/start-router.ts) → shutdown on signals.
 */
import { createLogger, messageLog } from '@orrery/log';
import { endpointForLog, startTracing } from '@orrery/tracing';
import { connectSharedTables, ROUTER_TABLES } from './shared-tables-redis.ts';
import { readRouterConfig } from './wiring/router-config.ts';
import { restoreFastStringPrototype } from './string-prototype-fast-mode.ts';
import { shutdownOnSignals } from './wiring/signal-shutdown.ts';
import { startRouter } from './wiring/start-router.ts';

const config = readRouterConfig(process.argv.slice(2), process.env);
// The data plane logs nothing per request: these are start-up, reload and watch messages.
const log = messageLog(createLogger({ component: 'router', level: config.logLevel, format: config.logFormat }));
const { trustedProxies } = config.router;
if (trustedProxies) log(`keeping X-Forwarded-*/Forwarded from trusted proxies ${trustedProxies.entries.join(', ')}; every other client's are overwritten`);
if (config.ignoredSyncables.length) log(`syncables this router does not have (ignored): ${config.ignoredSyncables.join(', ')}; it shares ${ROUTER_TABLES.join(', ')}`, 'warn');

const sharedTables = config.sharedTables ? await connectSharedTables({ ...config.sharedTables, log }) : undefined;
const tracing = config.tracing.enabled ? await startTracing(config.tracing) : undefined;
if (tracing) log(`tracing: spans go to ${endpointForLog(tracing.endpoint)} as ${tracing.serviceName}`);

const router = await startRouter({ ...config.router, sharedTables, tracer: tracing?.tracer, log });
// Every module is loaded now (ioredis among them): see string-prototype-fast-mode.ts.
restoreFastStringPrototype();
console.log(`listening ${router.url} admin ${router.adminUrl}${router.tlsUrl ? ` tls ${router.tlsUrl}` : ''}`);
shutdownOnSignals(router, { drainMs: config.drainMs, tracing, log });
