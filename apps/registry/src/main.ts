/**
 * orrery-registry: the StellMap registry API over etcd. Prints
 * `listening http://HOST:PORT admin http://HOST:PORT` once both listeners are up; everything
 * else it says is a JSON log record on stderr (@orrery/log).
 */
import { createLogger, registerSecret, resolveLogFormat } from '@orrery/log';
import { startupWarnings } from './auth/startup-warnings.ts';
import { loadConfig, USAGE } from './config.ts';
import { startRegistry } from './server.ts';

const loaded = loadConfig(process.argv.slice(2));
if (loaded.ok === 'help') {
  console.log(USAGE);
  process.exit(0);
}
// Settings that stop start-up are usage errors: one plain line, before any log exists.
if (!loaded.ok) {
  console.error(`orrery-registry: ${loaded.message}`);
  process.exit(2);
}
if (loaded.checkOnly) {
  // The settings a launcher decides, never a secret.
  const c = loaded.config;
  const summary = { region: c.region, clusterId: c.clusterId, etcdEndpoints: c.etcdEndpoints, requestTimeoutMs: c.requestTimeoutMs, shutdownTimeoutMs: c.shutdownTimeoutMs, cleanupIntervalMs: c.cleanupIntervalMs, cleanupDeleteLimit: c.cleanupDeleteLimit };
  console.log(`config ok ${JSON.stringify(summary)}`);
  process.exit(0);
}
const logFormat = resolveLogFormat(process.env, process.stderr.isTTY === true);
if (!logFormat.ok) {
  console.error(`orrery-registry: ${logFormat.message}`);
  process.exit(2);
}

const config = loaded.config;
for (const secret of [config.adminToken, config.replicationToken, config.prometheusSdToken, ...config.writeTokens.map((t) => t.token)]) registerSecret(secret);
for (const key of config.registryMasterKeys) registerSecret(key.toString('hex'));
const log = createLogger({ component: 'registry', level: config.logLevel, format: logFormat.value });

for (const w of startupWarnings(config)) log.warn(w);
const tokens = config.writeTokens;
if (tokens.length) log.info(`write tokens on: ${tokens.map((t) => t.name).join(', ')}`);

try {
  const registry = await startRegistry(config, { logger: log });
  console.log(`listening ${registry.httpUrl} admin ${registry.adminUrl}`);
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log.info(`${signal}, shutting down`);
    registry.close().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error(`shutdown: ${String(err)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
} catch (err) {
  // Not started (etcd unreachable, a port taken): a plain line, like a usage error.
  console.error(`orrery-registry: ${(err as Error).message}`);
  process.exit(1);
}
