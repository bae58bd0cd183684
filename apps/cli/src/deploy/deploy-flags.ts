/**
 * `orrery deploy` flags → what to change in the Function, checked before anything is sent.
 * Each flag maps to one field of the Function spec (docs/cli.md has the table):
 *
 *   --code FILE          spec.template.source (inline, or configMapRef on Kubernetes)
 *   --env NAME           spec.template.environment
 *   --state KEYSPACE     spec.state.keyspace (spec.state present = the function is stateful)
 *   --sticky SRC:NAME    spec.state.sticky {source, name}; SRC header | queryparam | cookie
 *   --concurrency N      spec.template.containerConcurrency (0 = unlimited)
 *   --scale MIN:MAX      spec.template.autoscaling.minScale / maxScale (MAX 0 or empty = unbounded)
 */
import { DNS1123_LABEL, KEYSPACE_PATTERN, STICKY_SOURCES, parseDurationMs, type StickySource } from '@orrery/spec';

/** The largest code file: a ConfigMap's limit (1 MiB), so the same file deploys on both backends. */
export const MAX_CODE_BYTES = 1024 * 1024;

export interface DeployFlagValues {
  code?: string;
  env?: string;
  state?: string;
  sticky?: string;
  concurrency?: string;
  scale?: string;
  namespace?: string;
  timeout?: string;
  'no-wait'?: boolean;
}

export interface DeployRequest {
  name: string;
  namespace: string;
  /** The path of the code file, when given. */
  codeFile?: string;
  environment?: string;
  keyspace?: string;
  sticky?: { source: StickySource; name: string };
  containerConcurrency?: number;
  scale?: { minScale: number; maxScale: number };
  wait: boolean;
  timeoutMs: number;
}

export const DEFAULT_DEPLOY_TIMEOUT = '2m';

const label = (v: string) => DNS1123_LABEL.test(v) && v.length <= 63;
const whole = (v: string) => (/^\d+$/.test(v) ? Number(v) : Number.NaN);

/** A request, or the first thing wrong with the flags in words that say what to type instead. */
export function parseDeployFlags(positionals: readonly string[], v: DeployFlagValues): DeployRequest | { error: string } {
  if (positionals.length !== 1) return { error: positionals.length === 0 ? 'name the function: orrery deploy NAME --code FILE' : `one function at a time (got ${positionals.join(' ')})` };
  const name = positionals[0]!;
  if (!label(name)) return { error: `function name "${name}" must be a DNS-1123 label (lowercase letters, digits, -; at most 63)` };
  const namespace = v.namespace ?? 'default';
  if (!label(namespace)) return { error: `namespace "${namespace}" must be a DNS-1123 label` };
  const req: DeployRequest = { name, namespace, wait: !v['no-wait'], timeoutMs: parseDurationMs(v.timeout ?? DEFAULT_DEPLOY_TIMEOUT) };
  if (!(req.timeoutMs > 0)) return { error: `--timeout takes a duration like 90s or 5m, got "${v.timeout}"` };
  if (v.code !== undefined) {
    if (v.code === '') return { error: '--code needs a file, e.g. --code ./handler.mjs' };
    req.codeFile = v.code;
  }
  if (v.env !== undefined) {
    if (!label(v.env)) return { error: `--env names an Environment (a DNS-1123 label such as nodejs), got "${v.env}"` };
    req.environment = v.env;
  }
  if (v.state !== undefined) {
    if (!KEYSPACE_PATTERN.test(v.state) || v.state.length > 63) return { error: `--state takes a keyspace name (lowercase letters, digits, -; at most 63), got "${v.state}"` };
    req.keyspace = v.state;
  }
  if (v.sticky !== undefined) {
    const i = v.sticky.indexOf(':');
    const source = v.sticky.slice(0, i);
    const key = v.sticky.slice(i + 1).trim();
    if (i <= 0 || !key || !(STICKY_SOURCES as readonly string[]).includes(source)) {
      return { error: `--sticky takes SOURCE:NAME with SOURCE ${STICKY_SOURCES.join(' | ')}, e.g. --sticky header:X-User; got "${v.sticky}"` };
    }
    req.sticky = { source: source as StickySource, name: key };
  }
  if (v.concurrency !== undefined) {
    const n = whole(v.concurrency);
    if (!(n >= 0 && n <= 1000)) return { error: `--concurrency takes 0 (unlimited) to 1000 requests per worker, got "${v.concurrency}"` };
    req.containerConcurrency = n;
  }
  if (v.scale !== undefined) {
    const m = /^(\d*):(\d*)$/.exec(v.scale) ?? /^(\d+)$/.exec(v.scale);
    const min = m ? (m[1] ? whole(m[1]) : 0) : Number.NaN;
    const max = m ? (m[2] === undefined ? min : m[2] ? whole(m[2]) : 0) : Number.NaN;
    if (Number.isNaN(min) || Number.isNaN(max) || (max !== 0 && max < min)) {
      return { error: `--scale takes MIN:MAX workers (MAX 0 or empty = unbounded; N alone = exactly N), e.g. --scale 1:5 or --scale 0:; got "${v.scale}"` };
    }
    req.scale = { minScale: min, maxScale: max };
  }
  return req;
}
