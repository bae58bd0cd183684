/**
 * orrery-operator: the reconciling control plane on the local backend. Owns the embedded
 * resource store (or opens Postgres), serves it to the other local processes over HTTP,
 * turns Functions into immutable Revisions and runs their workers as child processes.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mkdirSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { readMasterKeyFile } from '@orrery/auth';
import { connect } from '@orrery/db';
import { createLocalStore, createStoreHandler } from '@orrery/store';
import { LocalBackend } from './backends/local/local-backend.ts';
import { FunctionOperator } from './controller.ts';

const USAGE = `usage: orrery-operator [--host 127.0.0.1] [--port 0] [--data-dir .orrery] [--database-url URL]
  [--store-token-file FILE] [--registry-url URL[,URL]] [--state-url URL] [--master-key-file FILE]
  [--router-url URL] [--endpoints-file FILE] [--resync-seconds 30]`;

const { values } = (() => {
  try {
    return parseArgs({
      options: {
        host: { type: 'string', default: '127.0.0.1' },
        port: { type: 'string', default: '0' },
        'data-dir': { type: 'string', default: '.orrery' },
        'database-url': { type: 'string' },
        'store-token-file': { type: 'string' },
        'registry-url': { type: 'string' },
        'state-url': { type: 'string' },
        'master-key-file': { type: 'string' },
        'router-url': { type: 'string' },
        'endpoints-file': { type: 'string' },
        'resync-seconds': { type: 'string', default: '30' },
        help: { type: 'boolean' },
      },
      strict: true,
    });
  } catch (err) {
    process.stderr.write(`orrery-operator: ${(err as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
})();
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

const log = (msg: string, fields: Record<string, unknown> = {}) =>
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), component: 'orrery-operator', msg, ...fields })}\n`);

const dataDir = resolve(values['data-dir']);
mkdirSync(dataDir, { recursive: true });
const conn = connect({ url: values['database-url'] ?? process.env.DATABASE_URL, dataDir: join(dataDir, 'store') });
const store = await createLocalStore(conn);
const storeToken = values['store-token-file'] ? readFileSync(values['store-token-file'], 'utf8').trim() : undefined;
const masterKey = values['master-key-file'] ? readMasterKeyFile(values['master-key-file']) : undefined;

const runtimeBin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'runtime', 'bin', 'orrery-runtime.mjs');
const backend = new LocalBackend({
  runtimeCommand: { command: process.execPath, args: [runtimeBin] },
  dataDir,
  registryUrls: (values['registry-url'] ?? '').split(',').filter(Boolean),
  endpointsFile: values['endpoints-file'] ? resolve(values['endpoints-file']) : undefined,
  // the operator is created just below; the backend only calls back once workers run
  onChange: (key) => operator.workerChanged(key),
});
const operator: FunctionOperator = new FunctionOperator({
  store,
  backend,
  masterKey,
  stateUrl: values['state-url'],
  routerUrl: values['router-url'],
  resyncMs: Number(values['resync-seconds']) * 1000,
  log,
});

const handleStore = createStoreHandler(store, { token: storeToken });
const server = createServer((req, res) => {
  if (req.url === '/healthz') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true }));
    return;
  }
  if (req.url === '/v1/workers') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ endpoints: backend.endpoints(), pids: backend.workerPids() }));
    return;
  }
  void handleStore(req, res).then((handled) => {
    if (!handled) res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `no route ${req.url}`, code: 'not_found' }));
  });
});
server.listen(Number(values.port), values.host, () => {
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  process.stdout.write(`listening http://${host}:${port}\n`);
});
await operator.start();
log('operator started', { dataDir, store: conn.kind, masterKey: masterKey ? 'configured' : 'absent' });

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log(`${signal}: stopping workers and the store`);
  server.close();
  server.closeAllConnections();
  await operator.stop();
  await backend.stopAll();
  await store.close();
  await conn.close();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
