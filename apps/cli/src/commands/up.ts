import { join, resolve } from 'node:path';
import { resolveLogFormat, resolveLogLevel } from '@orrery/log';
import { readPlatformInfo } from '../platform/platform-file.ts';
import { renderSummary } from '../platform/summary.ts';
import { collectExampleManifests } from '../platform/examples.ts';
import { REPO_ROOT, Supervisor } from '../platform/supervisor.ts';
import { pidAlive } from '../platform/pid-alive.ts';
import { stopStaleChildren } from '../platform/stale-children.ts';
import { urlHasPassword } from '../platform/url-without-password.ts';
import { queueUrlProblem } from '../platform/queue-broker.ts';
import { parseCommandArgs } from './command-args.ts';

export const summary = 'run the whole platform locally (operator, statesvc, registry cluster, routers, console, examples)';

const HELP = `usage: orrery up [--data-dir .orrery] [--port-base 8080] [--state-driver memory|postgres]
                 [--no-examples] [--python-examples] [--no-console] [--users-file FILE] [--redis-url redis://127.0.0.1:6379] [--redis-key-prefix orrery]
                 [--queue-url nats://127.0.0.1:4222] [--log-level info]

Starts every component under one supervisor, in the foreground; Ctrl-C (or \`orrery down\`) stops
them all. A component that exits on its own is restarted (backoff from 0.5 s to 30 s; after 5
crashes within 2 minutes it stays Degraded). Data (functions, revisions, registry, state) lives in
--data-dir and survives restarts.

  --data-dir DIR          where the store, secrets, registry data and logs live (.orrery)
  --port-base N           routers on N and N+1, store/operator/admin API N+2, statesvc N+3,
                          registry API N+4, router admin N+6/N+7, console N+8; the registry's
                          etcd members pick free ports once and keep them; 0 = free ports (8080)
  --state-driver D        memory (default; journaled to <data-dir>/state, kept across restarts)
                          or postgres (DATABASE_URL or postgres://postgres@127.0.0.1:5432/orrery)
  --no-examples           do not apply examples/
  --python-examples       also apply examples/python (the python Environment and the Python twins
                          of counter and canary: python3 workers, docs/python.md)
  --no-console            do not build or serve the console (the admin API still runs)
  --users-file FILE       console / admin API users, one name:role:hash line each (orrery passwd);
                          the admin token always logs in as admin
  --redis-url URL         Redis the routers share tables through, when it answers (or
                          $ORRERY_REDIS_URL: use the variable when the URL holds a password,
                          a flag shows in \`ps\`); the routers get it in their environment
  --redis-key-prefix P    key prefix in that Redis (orrery)
  --queue-url URL         NATS JetStream for queue triggers (or $ORRERY_QUEUE_URL; no credentials
                          in it); default: a nats-server of its own on port N+9 when Debian's
                          nats-server is installed, else none (queue triggers report NoBroker)
  --tls                   the routers also serve spec.domains over HTTPS (ports N+10, N+11) with the
                          certificates the operator checks; a development CA (<data-dir>/tls, see
                          orrery tls) signs one for every tls.secretName without a local Secret
  --log-level L           trace|debug|info|warn|error|fatal|silent: every component's log level
                          (or $ORRERY_LOG_LEVEL; default info). Component logs are JSON records in
                          <data-dir>/logs/_platform/ (supervisor.log is the supervisor's own);
                          ORRERY_LOG_FORMAT=pretty writes them in a readable form instead

Postgres (--state-driver postgres) comes from $DATABASE_URL; statesvc gets it in its environment,
never on its command line.`;

/**
 * False when a live supervisor already runs on `dataDir`. When the one recorded there is dead,
 * the children it left running (killed supervisor, OOM) are stopped first instead of clashing
 * on their ports.
 */
export async function claimDataDir(dataDir: string, say: (line: string) => void, complain: (line: string) => void): Promise<boolean> {
  const running = readPlatformInfo(dataDir);
  if (!running) return true;
  if (pidAlive(running.pids.supervisor)) {
    complain(`already running (supervisor pid ${running.pids.supervisor}) for ${dataDir}; run \`orrery down\` first`);
    return false;
  }
  await stopStaleChildren(running, say);
  return true;
}

/** The flags, exported for `orrery completion`. */
export const options = {
  'data-dir': { type: 'string', default: '.orrery' },
  'port-base': { type: 'string', default: '8080' },
  'state-driver': { type: 'string', default: 'memory' },
  'no-examples': { type: 'boolean', default: false },
  'python-examples': { type: 'boolean', default: false },
  'no-console': { type: 'boolean', default: false },
  'users-file': { type: 'string' },
  'redis-url': { type: 'string' },
  'queue-url': { type: 'string' },
  'redis-key-prefix': { type: 'string' },
  'log-level': { type: 'string' },
  tls: { type: 'boolean', default: false },
  foreground: { type: 'boolean', default: true },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs('up', HELP, argv, {
    options,
  });
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  const driver = values['state-driver'];
  if (driver !== 'memory' && driver !== 'postgres') {
    console.error('orrery up: --state-driver must be memory or postgres');
    return 2;
  }
  const portBase = Number(values['port-base']);
  if (!Number.isInteger(portBase) || portBase < 0 || portBase > 65_000) {
    console.error('orrery up: --port-base must be 0 (free ports) or a port number below 65000');
    return 2;
  }
  const queueUrl = values['queue-url'] ?? (process.env.ORRERY_QUEUE_URL || undefined);
  const queueProblem = queueUrl ? queueUrlProblem(queueUrl) : undefined;
  if (queueProblem) {
    console.error(`orrery up: ${queueProblem}`);
    return 2;
  }
  if (values['redis-url'] && urlHasPassword(values['redis-url'])) {
    console.error('orrery up: warning: --redis-url holds a password, which every local user can read in `ps`; pass it as ORRERY_REDIS_URL instead');
  }
  const logLevel = resolveLogLevel(values['log-level'], process.env);
  const logFormat = resolveLogFormat(process.env, false);
  if (!logLevel.ok) {
    console.error(`orrery up: ${logLevel.message}`);
    return 2;
  }
  if (!logFormat.ok) {
    console.error(`orrery up: ${logFormat.message}`);
    return 2;
  }
  // The children read the level from their environment: one flag sets every component's.
  if (values['log-level'] !== undefined) process.env.ORRERY_LOG_LEVEL = logLevel.value;
  const dataDir = resolve(values['data-dir']);
  if (!(await claimDataDir(dataDir, (l) => console.log(`orrery up: ${l}`), (l) => console.error(`orrery up: ${l}`)))) return 1;

  const supervisor = new Supervisor({
    dataDir,
    portBase,
    stateDriver: driver,
    examples: !values['no-examples'],
    pythonExamples: values['python-examples'],
    console: !values['no-console'],
    usersFile: values['users-file'],
    redisUrl: values['redis-url'] ?? (process.env.ORRERY_REDIS_URL || undefined),
    queueUrl: values['queue-url'] ?? (process.env.ORRERY_QUEUE_URL || undefined),
    tls: values.tls,
    redisKeyPrefix: values['redis-key-prefix'],
    logLevel: logLevel.value,
  });
  let stopRequested: (signal: string) => void = () => {};
  const stopped = new Promise<string>((r) => (stopRequested = r));
  process.on('SIGINT', () => stopRequested('SIGINT'));
  process.on('SIGTERM', () => stopRequested('SIGTERM'));

  console.log(`orrery up: starting the local platform (data in ${dataDir})`);
  try {
    const starting = supervisor.start();
    const first = await Promise.race([starting.then(() => undefined), stopped]);
    if (first) {
      console.log(`orrery up: ${first} while starting, stopping what started`);
      await starting.catch(() => {});
      await supervisor.stop();
      return 0;
    }
    const info = await starting;
    const examples = !values['no-examples'];
    const exampleKinds = examples ? collectExampleManifests(join(REPO_ROOT, 'examples'), values['python-examples'] ? ['python'] : []).map((m) => m.object.kind ?? '') : [];
    // The admin token goes to a terminal only; piped output (CI, log collectors) gets its file.
    const terminal = process.stdout.isTTY === true;
    const { adminTokenFile, registryWriteTokenFile } = supervisor.secretFiles;
    console.log(renderSummary(info, { adminTokenFile, adminToken: supervisor.adminToken, terminal, registryWriteTokenFile, examples, exampleKinds }));
    if (supervisor.tlsInfo) {
      const { ca, ports } = supervisor.tlsInfo;
      console.log(`HTTPS for spec.domains on ${ports.map((p) => `:${p}`).join(' and ')}, e.g. curl --cacert ${ca.certFile} https://hello.localtest.me:${ports[0]}/`);
      console.log(`  (orrery tls dev-ca prints how to trust the development CA; orrery tls cert HOST makes more certificates)`);
    }
    console.log('orrery up: ready');
  } catch (err) {
    console.error(`orrery up: start failed: ${(err as Error).message}`);
    await supervisor.stop();
    return 1;
  }
  const signal = await stopped;
  console.log(`orrery up: ${signal}, stopping every component`);
  await supervisor.stop();
  // Idle keep-alive sockets must not hold the CLI open once every child is gone.
  setTimeout(() => process.exit(0), 2_000).unref();
  return 0;
}
