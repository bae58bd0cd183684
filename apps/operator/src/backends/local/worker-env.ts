/**
 * The environment a local worker starts with (issue 20 item 7). Workers used to inherit the
 * operator's whole environment — database URLs, tokens, whatever the shell that ran `orrery up`
 * held. Now a worker gets only an explicit allow-list from the operator's environment, the
 * operator's own additions for this worker (code, state/registry credentials, the specialize
 * verifier, the template's env) and HOME = its work dir. Pure.
 */
import { TRACE_ENV_PASSTHROUGH } from '@orrery/tracing';

export const WORKER_ENV_ALLOW: readonly string[] = [
  // How to run programs and print text: what a function's libraries and child processes expect.
  'PATH', 'LANG', 'LANGUAGE', 'TZ',
  // TLS trust for URL sources and outbound calls (paths, not secrets).
  'NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'SSL_CERT_DIR',
  // The runtime's log level.
  'ORRERY_LOG_LEVEL',
];
/** Locale variables pass as a family. */
const ALLOW_PREFIXES = ['LC_'];

export interface WorkerEnvOptions {
  /** HOME for the worker: its own work dir (never the operator's home). */
  home: string;
  /** More names to pass from the operator's environment (`--worker-env-passthrough`). */
  passthrough?: readonly string[];
}

/**
 * Tracing, when whoever started the operator set it (docs/tracing.md): where to export and how to
 * sample — never OTEL_EXPORTER_OTLP_HEADERS (it holds collector credentials: --worker-env-passthrough
 * names it on purpose) nor OTEL_SERVICE_NAME (workers name themselves).
 */
const TRACING = TRACE_ENV_PASSTHROUGH;

export function isPassedThrough(name: string, passthrough: readonly string[] = []): boolean {
  return WORKER_ENV_ALLOW.includes(name) || TRACING.includes(name) || passthrough.includes(name) || ALLOW_PREFIXES.some((p) => name.startsWith(p));
}

export function workerEnvironment(parent: NodeJS.ProcessEnv, own: Record<string, string>, o: WorkerEnvOptions): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) if (value !== undefined && isPassedThrough(name, o.passthrough)) env[name] = value;
  env.HOME = o.home;
  return { ...env, ...own };
}

/** `--worker-env-passthrough A,B`: names only (letters, digits, "_"), never a value. */
export function parsePassthrough(text: string | undefined): string[] {
  const names = (text ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  for (const n of names) if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(n)) throw new Error(`--worker-env-passthrough takes variable names, got ${JSON.stringify(n)}`);
  return names;
}
