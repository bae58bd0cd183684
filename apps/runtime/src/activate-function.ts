import { createStateClient } from '@orrery/sdk';
import { ConcurrencyBreaker } from './breaker.ts';
import type { FunctionContext, WebSocketHandler } from './function-context.ts';
import type { FunctionSource } from './load/function-source.ts';
import { loadFunction } from './load/load-function.ts';
import type { Logger } from '@orrery/log';
import { writeStateTokenFile, type StateCredentials } from './state-token-file.ts';
import type { ActiveFunction } from './worker-server.ts';
import { NO_TRACE } from './tracing/invocation-trace.ts';

/** What a worker needs to serve one revision; the same shape at start (deploy) and at specialize (pool). */
export interface FunctionAssignment {
  namespace: string;
  function: string;
  revision: string;
  source: FunctionSource;
  entrypoint?: string;
  containerConcurrency: number;
  timeoutSeconds: number;
  /** For stateful functions: where statesvc is, the scoped credentials, and spec.state.fencing. */
  state?: { url: string; credentials: StateCredentials; fencing?: boolean };
  /** The registration credential for this revision's registry writes (registrar only; never exported to function code). */
  registryCredential?: string;
  /** Pool mode: the template's env, from the specialize call (deploy workers are started with it). */
  env?: Record<string, string>;
}

export interface ActivateOptions {
  workDir: string;
  maxSourceBytes?: number;
  log: Logger;
  env?: NodeJS.ProcessEnv;
}

/**
 * Writes the state token file and exports the state variables (before the function's
 * module runs, so top-level code sees them), loads the code, and builds the context and
 * breaker. Throws LoadError when the code cannot be loaded.
 */
export async function activateFunction(a: FunctionAssignment, opts: ActivateOptions): Promise<ActiveFunction> {
  const env = opts.env ?? process.env;
  const log = opts.log.child({ namespace: a.namespace, function: a.function, revision: a.revision });
  // Never ORRERY_*: the platform's variables below are the runtime's to set.
  for (const [name, value] of Object.entries(a.env ?? {})) if (!name.startsWith('ORRERY_')) env[name] = value;
  env.ORRERY_NAMESPACE = a.namespace;
  env.ORRERY_FUNCTION = a.function;
  env.ORRERY_REVISION = a.revision;
  let state: FunctionContext['state'];
  if (a.state) {
    const tokenPath = await writeStateTokenFile(opts.workDir, a.state.credentials);
    env.ORRERY_STATE_URL = a.state.url;
    env.ORRERY_STATE_TOKEN_PATH = tokenPath;
    // The file is the one way to the token; keep it out of the handler's environment.
    delete env.ORRERY_STATE_TOKEN;
    state = createStateClient({ url: a.state.url, tokenPath, fencing: a.state.fencing === true });
    log.info('state token file written', { path: tokenPath, keyspace: a.state.credentials.keyspace, fencing: a.state.fencing === true });
  }
  const started = performance.now();
  const loaded = await loadFunction({ source: a.source, entrypoint: a.entrypoint }, { workDir: opts.workDir, maxBytes: opts.maxSourceBytes });
  log.info('function loaded', { module: loaded.modulePath, entrypoint: a.entrypoint ?? 'default', websocket: loaded.websocket !== undefined, grpcMethods: loaded.grpc?.size ?? 0, ms: Math.round(performance.now() - started) });
  return {
    namespace: a.namespace,
    function: a.function,
    revision: a.revision,
    handler: loaded.handler,
    websocket: loaded.websocket as WebSocketHandler | undefined,
    grpc: loaded.grpc,
    keyspace: a.state?.credentials.keyspace,
    // Per request, the worker server replaces `trace` (and binds `state` to it): tracing/invocation-trace.ts.
    ctx: { state, namespace: a.namespace, function: a.function, revision: a.revision, log: log.child({ source: 'function' }), trace: NO_TRACE },
    breaker: new ConcurrencyBreaker({ limit: a.containerConcurrency }),
    timeoutMs: a.timeoutSeconds * 1000,
  };
}
