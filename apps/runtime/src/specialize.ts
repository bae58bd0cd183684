import type { FunctionAssignment } from './activate-function.ts';
import { LoadError } from './load/load-error.ts';
import { credentialFromClaims, RegistryCredentialError } from './registration/registry-credential.ts';
import type { AdminAnswer } from './worker-server.ts';

/**
 * Pool mode (Fission's poolmgr): a generic warm worker receives its function with
 * `POST /v1/specialize`. The body carries the same assignment deploy mode reads from flags;
 * the per-function state token arrives here because a running process cannot get new env.
 */
export interface SpecializeRequest {
  namespace?: string;
  function: string;
  revision: string;
  /** `dir` (+ `main`): a built package folder (docs/packages.md), loaded as deploy mode's --source-dir/--source-main. */
  source: { inline?: string; url?: string; file?: string; dir?: string; main?: string };
  entrypoint?: string;
  containerConcurrency?: number;
  timeoutSeconds?: number;
  stateCredentials?: { namespace: string; keyspace: string; token: string };
  /** Defaults to the worker's ORRERY_STATE_URL (function-agnostic, set when the pool was created). */
  stateUrl?: string;
  /** The function's spec.state.fencing: ctx.state claims keys and sends their fences. */
  stateFencing?: boolean;
  /** The revision's registration credential: `{namespace, service, token}`, service `orrery.functions.<ns>.<fn>.<rev>`. */
  registryCredential?: { namespace: string; service: string; token: string };
  /** The template's env (secret references resolved by the executor), set before the code loads. */
  env?: Record<string, string>;
}

const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

export type Parsed = { ok: true; assignment: FunctionAssignment } | { ok: false; error: string };

const str = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/**
 * The problems of a package source (`dir`, `main`). `dir` is absolute: a pool worker's working
 * directory is its own, not the executor's. `main` stays inside it (relative, no `..`); the loader
 * checks again after resolving symlinks (load/package-main.ts).
 */
export function packageSourceProblems(dir: unknown, main: unknown): string[] {
  const problems: string[] = [];
  if (!str(dir) || !dir.startsWith('/') || dir.includes('\0')) problems.push('source.dir must be the absolute path of the built package folder');
  if (main !== undefined) {
    const parts = typeof main === 'string' ? main.split(/[\\/]/) : [];
    if (!str(main) || main.startsWith('/') || main.includes('\0') || parts.includes('..') || /^[a-zA-Z]:/.test(main)) {
      problems.push('source.main must be a path relative to source.dir, without ".." (e.g. "src/handler.mjs")');
    }
  }
  return problems;
}

export function parseSpecializeRequest(body: unknown, defaultStateUrl?: string): Parsed {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return { ok: false, error: 'body must be a JSON object' };
  const b = body as Record<string, unknown>;
  const problems: string[] = [];
  if (!str(b.function)) problems.push('function (non-empty string) is required');
  if (!str(b.revision)) problems.push('revision (non-empty string) is required');
  if (b.namespace !== undefined && !str(b.namespace)) problems.push('namespace must be a non-empty string');
  if (b.entrypoint !== undefined && !str(b.entrypoint)) problems.push('entrypoint must be a non-empty string');
  const src = b.source as Record<string, unknown> | undefined;
  const kinds = src && typeof src === 'object' ? (['inline', 'url', 'file', 'dir'] as const).filter((k) => src[k] !== undefined) : [];
  if (kinds.length !== 1 || !str(src![kinds[0]!])) problems.push('source must hold exactly one of inline, url, file or dir, as a non-empty string');
  else if (kinds[0] === 'dir') problems.push(...packageSourceProblems(src!.dir, src!.main));
  if (kinds[0] !== 'dir' && src && typeof src === 'object' && src.main !== undefined) problems.push('source.main goes with source.dir (the module inside a package folder)');
  const cc = b.containerConcurrency ?? 0;
  if (!Number.isInteger(cc) || (cc as number) < 0) problems.push('containerConcurrency must be an integer ≥ 0');
  const timeout = b.timeoutSeconds ?? 300;
  if (!Number.isInteger(timeout) || (timeout as number) < 1) problems.push('timeoutSeconds must be an integer ≥ 1');
  const creds = b.stateCredentials as Record<string, unknown> | undefined;
  const stateUrl = (b.stateUrl as string | undefined) ?? defaultStateUrl;
  if (creds !== undefined) {
    if (typeof creds !== 'object' || creds === null || !str(creds.namespace) || !str(creds.keyspace) || !str(creds.token)) {
      problems.push('stateCredentials must be {namespace, keyspace, token}, all non-empty strings');
    }
    if (!str(stateUrl)) problems.push('stateCredentials need stateUrl (or ORRERY_STATE_URL on the worker)');
  }
  if (b.stateFencing !== undefined && typeof b.stateFencing !== 'boolean') problems.push('stateFencing must be true or false');
  if (b.stateFencing === true && creds === undefined) problems.push('stateFencing needs stateCredentials');
  const env = b.env ?? {};
  if (env === null || typeof env !== 'object' || Array.isArray(env)) problems.push('env must be an object of name → string value');
  else {
    for (const [name, value] of Object.entries(env as Record<string, unknown>)) {
      if (!ENV_NAME.test(name) || name.startsWith('ORRERY_')) problems.push(`env name "${name}" is not allowed (letters, digits, "_", "-", "."; ORRERY_* belongs to the platform)`);
      else if (typeof value !== 'string') problems.push(`env ${name} must be a string`);
    }
  }
  const namespace = (b.namespace as string | undefined) ?? 'default';
  let registryCredential: string | undefined;
  if (b.registryCredential !== undefined && problems.length === 0) {
    try {
      registryCredential = credentialFromClaims(b.registryCredential, { namespace, function: b.function as string, revision: b.revision as string }, 'registryCredential');
    } catch (err) {
      if (!(err instanceof RegistryCredentialError)) throw err;
      problems.push(err.message);
    }
  }
  if (problems.length) return { ok: false, error: `invalid specialize request: ${problems.join('; ')}` };
  return {
    ok: true,
    assignment: {
      namespace,
      function: b.function as string,
      revision: b.revision as string,
      source: kinds[0] === 'dir' && src!.main !== undefined ? { dir: src!.dir as string, main: src!.main as string } : { [kinds[0]!]: src![kinds[0]!] as string },
      entrypoint: b.entrypoint as string | undefined,
      containerConcurrency: cc as number,
      timeoutSeconds: timeout as number,
      state: creds
        ? { url: stateUrl!, credentials: { namespace: creds.namespace as string, keyspace: creds.keyspace as string, token: creds.token as string }, ...(b.stateFencing === true ? { fencing: true } : {}) }
        : undefined,
      ...(registryCredential ? { registryCredential } : {}),
      ...(Object.keys(env).length ? { env: env as Record<string, string> } : {}),
    },
  };
}

/**
 * Turns the one admitted specialize call into an activation. The single-use nonce gate in front
 * of it (specialize-gate.ts) lets exactly one call through, so a worker is specialized at most
 * once in its life; a second activation is refused here too (defence in depth). A failed load
 * leaves the worker spent (`onFailed`): the executor discards it, never reuses it.
 */
export function createSpecializer(opts: {
  defaultStateUrl?: string;
  activate: (a: FunctionAssignment) => Promise<{ address: string }>;
  onFailed?: () => void;
}): (body: unknown) => Promise<AdminAnswer> {
  let current: string | undefined;
  return async (body) => {
    if (current) return { status: 409, body: { error: `worker is already specialized for ${current}; use another pool worker`, code: 'already_specialized' } };
    const parsed = parseSpecializeRequest(body, opts.defaultStateUrl);
    if (!parsed.ok) {
      opts.onFailed?.();
      return { status: 400, body: { error: parsed.error, code: 'bad_request' } };
    }
    const a = parsed.assignment;
    current = `${a.namespace}/${a.function}/${a.revision}`;
    const started = performance.now();
    try {
      const { address } = await opts.activate(a);
      return { status: 200, body: { specialized: true, namespace: a.namespace, function: a.function, revision: a.revision, address, loadMs: Math.round(performance.now() - started) } };
    } catch (err) {
      opts.onFailed?.();
      return err instanceof LoadError
        ? { status: 422, body: { error: err.message, code: err.code } }
        : { status: 500, body: { error: `specialize failed: ${(err as Error).message}`, code: 'internal' } };
    }
  };
}
