import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, registerSecret, resolveLogFormat } from '@orrery/log';
import { endpointForLog, startTracing } from '@orrery/tracing';
import { activateFunction, type FunctionAssignment } from './activate-function.ts';
import { advertiseHost } from './advertise-host.ts';
import { ConfigError, parseRuntimeConfig, USAGE, type RuntimeConfig } from './config.ts';
import { preloadFetchClasses } from './fetch-classes-preload.ts';
import { LoadError } from './load/load-error.ts';
import { watchParent } from './parent-watch.ts';
import { Registrar } from './registration/registrar.ts';
import { credentialFromEnv, readRegistryCredentialFile } from './registration/registry-credential.ts';
import { createSpecializer } from './specialize.ts';
import { readSpecializeVerifier, removeSpecializeVerifier, SpecializeGate } from './specialize-gate.ts';
import { readStateTokenFile } from './state-token-file.ts';
import { warmUp } from './warm-up.ts';
import { WorkerServer } from './worker-server.ts';

/**
 * The worker, as one function rather than top-level await: the local backend runs the runtime
 * as a CommonJS body through V8's code cache (apps/operator/src/backends/local/runtime-bundle.ts),
 * and CommonJS has no top-level await.
 */
async function main(): Promise<void> {
  // The pool pod's init container runs the same image: `orrery-runtime write-specialize-verifier …`.
  if (process.argv[2] === 'write-specialize-verifier') {
    const { parseVerifierInitArgs, writeSpecializeVerifierFile } = await import('./specialize-verifier-init.ts');
    try {
      await writeSpecializeVerifierFile(parseVerifierInitArgs(process.argv.slice(3), process.env));
      process.exit(0);
    } catch (err) {
      process.stderr.write(`orrery-runtime write-specialize-verifier: ${(err as Error).message}\n`);
      process.exit(2);
    }
  }

  let cfg: RuntimeConfig;
  try {
    cfg = parseRuntimeConfig(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`orrery-runtime: ${err.message}\n${USAGE}\n`);
    process.exit(2);
  }

  const logFormat = resolveLogFormat(process.env, process.stderr.isTTY === true);
  if (!logFormat.ok) {
    process.stderr.write(`orrery-runtime: ${logFormat.message}\n`);
    process.exit(2);
  }
  // Everything the worker says is a JSON record on stderr; stdout carries only the `listening …` line.
  const log = createLogger({ component: 'runtime', level: cfg.logLevel, format: logFormat.value });

  // Secrets mounted as files (Kubernetes) are read once, before anything listens: a missing or
  // mismatched file is a configuration error, reported like a bad flag.
  async function readMountedSecrets(): Promise<{ stateToken?: string; specialize: { verifier?: string; spent: boolean }; registryCredential?: string }> {
    try {
      const scope = { namespace: cfg.namespace, function: cfg.function ?? '', revision: cfg.revision ?? '' };
      return {
        stateToken: cfg.stateTokenFile ? await readStateTokenFile(cfg.stateTokenFile, { namespace: cfg.namespace, keyspace: cfg.stateKeyspace! }) : cfg.stateToken,
        specialize: await readSpecializeVerifier({ file: cfg.specializeVerifierFile, env: cfg.specializeVerifier }),
        registryCredential: cfg.registryCredentialFile
          ? await readRegistryCredentialFile(cfg.registryCredentialFile, scope)
          : cfg.registryCredential
            ? credentialFromEnv(cfg.registryCredential)
            : undefined,
      };
    } catch (err) {
      process.stderr.write(`orrery-runtime: ${(err as Error).message}\n`);
      process.exit(2);
    }
  }
  const secrets = await readMountedSecrets();
  for (const secret of [secrets.stateToken, secrets.registryCredential, secrets.specialize.verifier]) registerSecret(secret);
  // The credential is the registrar's alone: function code (loaded later) must not find it in the environment.
  delete process.env.ORRERY_REGISTRY_CREDENTIAL;
  delete process.env.ORRERY_SPECIALIZE_VERIFIER;
  if (cfg.mode === 'pool' && !secrets.specialize.verifier && !secrets.specialize.spent) {
    log.warn('no specialize verifier (--specialize-verifier-file or ORRERY_SPECIALIZE_VERIFIER): this pool worker refuses every specialize call');
  }
  if (secrets.specialize.spent) log.warn('the specialize verifier file is gone: this worker was specialized before its container restarted; it stays spent (not ready)');
  // Single use: the first admitted specialize call consumes the nonce; the file goes with it, so a
  // restarted container cannot be specialized again either.
  const gate = new SpecializeGate({
    ...secrets.specialize,
    onConsumed: () => {
      if (cfg.specializeVerifierFile) void removeSpecializeVerifier(cfg.specializeVerifierFile).catch((err: unknown) => log.warn('cannot remove the used specialize verifier file', { error: (err as Error).message }));
    },
  });
  const workDir = cfg.workDir ?? (await mkdtemp(join(tmpdir(), 'orrery-runtime-')));
  // A work dir we made ourselves (holding inline code and maybe the token file) goes with us.
  const removeWorkDir = () => (cfg.workDir ? Promise.resolve() : rm(workDir, { recursive: true, force: true }).catch(() => undefined));

  // A stray rejection in function code must not take down the requests of everyone else.
  process.on('unhandledRejection', (reason) => {
    log.error('unhandled promise rejection in function code', { error: reason instanceof Error ? (reason.stack ?? reason.message) : String(reason) });
  });
  // Decided at start from the worker's own environment (a pool worker's template env arrives later and does not change it).
  const tracing = cfg.tracing.enabled ? await startTracing(cfg.tracing) : undefined;
  if (tracing) log.info('tracing on', { endpoint: endpointForLog(tracing.endpoint), service: tracing.serviceName });
  let registrar: Registrar | undefined;
  const self: { address?: { host: string; port: number; adminPort?: number } } = {};

  const server = new WorkerServer({
    host: cfg.host,
    port: cfg.port,
    adminPort: cfg.adminPort,
    maxRequestBytes: cfg.maxRequestBytes,
    log,
    readyWithoutFunction: cfg.mode === 'pool',
    admitSpecialize: (authorization) => gate.admit(authorization),
    tracer: tracing?.tracer,
    specialize:
      cfg.mode === 'pool'
        ? createSpecializer({
            defaultStateUrl: cfg.stateUrl,
            onFailed: () => server.markSpent(),
            activate: async (a) => {
              registerSecret(a.state?.credentials.token);
              registerSecret(a.registryCredential);
              server.activate(await activateFunction(a, { workDir, maxSourceBytes: cfg.maxSourceBytes, log }));
              startRegistration(a);
              return { address: `${self.address!.host}:${self.address!.port}` };
            },
          })
        : undefined,
  });

  if (gate.spent) server.markSpent();

  function startRegistration(a: FunctionAssignment): void {
    const address = self.address;
    if (cfg.registryUrls.length === 0 || !address) return;
    registrar = new Registrar({
      urls: cfg.registryUrls,
      credential: a.registryCredential,
      leaseTtlSeconds: cfg.leaseTtlSeconds,
      log: log.child({ namespace: a.namespace, function: a.function, revision: a.revision }),
      worker: {
        namespace: a.namespace,
        function: a.function,
        revision: a.revision,
        executor: cfg.mode,
        // Registry instance ids allow letters, digits and . _ : @ -; hostnames may hold anything else.
        instanceId: cfg.instanceId ?? `${a.revision}-${hostname().replace(/[^A-Za-z0-9._:@-]/g, '-')}-${address.port}-${randomBytes(3).toString('hex')}`,
        host: address.host,
        port: address.port,
        adminPort: address.adminPort,
        containerConcurrency: a.containerConcurrency,
      },
    });
    registrar.start();
  }

  // Deploy mode loads the code before listening: a worker that cannot load never looks ready.
  let deployed: FunctionAssignment | undefined;
  if (cfg.mode === 'deploy') {
    deployed = {
      namespace: cfg.namespace,
      function: cfg.function!,
      revision: cfg.revision!,
      source: cfg.source!,
      entrypoint: cfg.entrypoint,
      containerConcurrency: cfg.containerConcurrency,
      timeoutSeconds: cfg.timeoutSeconds,
      state: cfg.stateKeyspace
        ? { url: cfg.stateUrl!, credentials: { namespace: cfg.namespace, keyspace: cfg.stateKeyspace, token: secrets.stateToken! }, fencing: cfg.stateFencing }
        : undefined,
      registryCredential: secrets.registryCredential,
    };
    try {
      server.activate(await activateFunction(deployed, { workDir, maxSourceBytes: cfg.maxSourceBytes, log }));
    } catch (err) {
      const what = err instanceof LoadError ? `${err.code}: ${err.message}` : String((err as Error).stack ?? err);
      process.stderr.write(`orrery-runtime: cannot load function ${cfg.namespace}/${cfg.function} (${cfg.revision}): ${what}\n`);
      await removeWorkDir();
      process.exit(1);
    }
  }

  const listening = await server.listen().catch((err: Error) => {
    process.stderr.write(`orrery-runtime: cannot listen on ${cfg.host}:${cfg.port}: ${err.message}\n`);
    process.exit(1);
  });
  self.address = { host: cfg.advertiseHost ?? advertiseHost(cfg.host), port: listening.port, adminPort: listening.adminPort };
  // A generic worker pays its one-time costs before anyone learns its address (see warm-up.ts).
  if (cfg.mode === 'pool') {
    const silentLog = createLogger({ component: 'runtime', level: cfg.logLevel, format: logFormat.value, destination: { write: () => true } });
    const ms = await warmUp(server, { url: listening.url, adminUrl: listening.adminUrl, workDir, log, silentLog }).catch((err: unknown) => {
      log.warn('warm-up failed; the first specialization pays the one-time costs', { error: (err as Error).message });
      return undefined;
    });
    if (ms !== undefined) log.info('warmed up', { ms });
  }
  process.stdout.write(listening.adminUrl ? `listening ${listening.url} admin ${listening.adminUrl}\n` : `listening ${listening.url}\n`);
  // Set by the code-cached boot (apps/runtime/boot/code-cached-boot.mjs): used, rejected or none.
  const codeCache = (globalThis as Record<symbol, unknown>)[Symbol.for('orrery.runtime.codeCache')] as string | undefined;
  log.info('worker ready', { mode: cfg.mode, url: listening.url, adminUrl: listening.adminUrl, workDir, ...(codeCache ? { codeCache } : {}) });
  if (deployed) {
    startRegistration(deployed);
    // Node's fetch classes load while the address travels to the router, not on the first request
    // (on the next turn: the signal handlers below are in place before the ~25 ms load).
    setImmediate(() => void preloadFetchClasses().catch((err: unknown) => log.warn('preloading the fetch classes failed; the first request loads them', { error: (err as Error).message })));
  }

  let stopping = false;
  async function shutdown(signal: string): Promise<void> {
    if (stopping) return;
    stopping = true;
    const pending = server.stats().current;
    log.info('draining', { signal, inFlight: pending.inFlight, queued: pending.queued, drainTimeoutSeconds: cfg.drainTimeoutSeconds });
    // readyz turns 503 and new requests are refused at once; deregistration runs beside the drain.
    const drained = server.drain(cfg.drainTimeoutSeconds * 1000);
    await registrar?.stop();
    const clean = await drained;
    if (clean) log.info('drained; exiting');
    else log.warn('drain timeout passed with requests still in flight; exiting anyway');
    // The drained invocations' spans go out before the process does.
    await tracing?.shutdown();
    await removeWorkDir();
    process.exit(0);
  }
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  // Whoever started this worker died without stopping it (a killed local operator): nobody would.
  if (cfg.exitWithParent !== undefined) watchParent(cfg.exitWithParent, () => void shutdown('parent exited'));
}

main().catch((err: unknown) => {
  process.stderr.write(`orrery-runtime: ${String((err as Error)?.stack ?? err)}\n`);
  process.exit(1);
});
