/**
 * orrery-registry: the StellMap registry API over etcd. Prints
 * `listening http://HOST:PORT admin http://HOST:PORT` once both listeners are up.
 */
import { startupWarnings } from './auth/startup-warnings.ts';
import { loadConfig, USAGE } from './config.ts';
import { startRegistry } from './server.ts';

const loaded = loadConfig(process.argv.slice(2));
if (loaded.ok === 'help') {
  console.log(USAGE);
  process.exit(0);
}
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

for (const w of startupWarnings(loaded.config)) console.error(`orrery-registry: ${w}`);
const tokens = loaded.config.writeTokens;
if (tokens.length) console.error(`orrery-registry: write tokens on: ${tokens.map((t) => t.name).join(', ')}`);

try {
  const registry = await startRegistry(loaded.config);
  console.log(`listening ${registry.httpUrl} admin ${registry.adminUrl}`);
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    console.error(`orrery-registry: ${signal}, shutting down`);
    registry.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
} catch (err) {
  console.error(`orrery-registry: ${(err as Error).message}`);
  process.exit(1);
}
