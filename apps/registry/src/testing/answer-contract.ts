/**
 * The fuzz tests' oracle: what any answer of orrery-registry may look like, whatever was asked.
 *
 * - 2xx: the `ok` envelope, a Prometheus SD target-group array, metrics text, or an event stream
 *   whose frames are watch events;
 * - everything else: the envelope `{code, message, data: {}, requestId}` (requestId also in
 *   X-Request-Id) with an error code of the wire contract (REGISTRY_ERROR_CODES) and the status
 *   that code has there;
 * - no 5xx but `watch_capacity_reached` (a watch cap is an expected answer; etcd is healthy
 *   throughout the fuzz) — and, while etcd is down, the codes that say so; no 1xx other than
 *   100 Continue, no redirects;
 * - no message carrying internals: etcd/gRPC text, JavaScript error names, stack frames, file
 *   paths. The admin API's authenticated answers may quote etcd's refusal (by design, for the
 *   operator), nothing else.
 */
import { REGISTRY_CODE_STATUS, REGISTRY_ERROR_CODES, RegistryTargetGroupsSchema, RegistryWatchEventSchema } from '@orrery/spec';
import type { RawAnswer } from './raw-http.ts';

/** JavaScript internals: error names, stack frames, source paths. */
const JS_LEAKS = String.raw`\bat (?:async )?[\w.<>$]+ \(|\(?\/[\w/.-]+\.(?:ts|js|mjs|cjs):\d|node:internal|Maximum call stack|\b(?:Type|Range|Syntax|Reference)Error\b|Cannot read propert|is not a function|undefined is not`;
/** etcd and gRPC internals: etcd3's error classes, etcd's own texts, gRPC status names, socket errors. */
const ETCD_LEAKS = String.raw`etcdserver|mvcc:|\b(?:Etcd|GRPC)\w*Error\b|\b(?:UNAVAILABLE|DEADLINE_EXCEEDED|RESOURCE_EXHAUSTED|FAILED_PRECONDITION)\b|\bE(?:CONNRESET|CONNREFUSED|PIPE|TIMEDOUT)\b|No connection established`;
/** Internals that must never reach a client. */
export const LEAKS = new RegExp(`${JS_LEAKS}|${ETCD_LEAKS}`);
/** What the admin API's authenticated answers must still never carry (they may quote etcd's refusal, by design). */
export const ADMIN_LEAKS = new RegExp(JS_LEAKS);

/** The only 5xx a healthy registry may answer under fuzz. */
const EXPECTED_5XX = new Set(['watch_capacity_reached']);
/** What it may answer besides while its etcd is paused or gone. */
const ETCD_DOWN_5XX = new Set([...EXPECTED_5XX, 'not_ready', 'not_leader', 'read_failed', 'scan_failed', 'propose_failed']);

export interface AnswerContext {
  /** The answer came from the admin listener to a caller holding the admin token. */
  trustedAdmin?: boolean;
  /** The request was HEAD: the answer has a status and headers, no body. */
  head?: boolean;
  /** etcd is paused or down: 503 for what needs it is the right answer (still without etcd's text). */
  etcdDown?: boolean;
}

function envelopeProblem(a: RawAnswer, wantOk: boolean, ctx: AnswerContext): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(a.body);
  } catch {
    return `status ${a.status}: the body is not JSON: ${JSON.stringify(a.body.slice(0, 200))}`;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return `status ${a.status}: not an envelope: ${a.body.slice(0, 200)}`;
  const e = body as Record<string, unknown>;
  const keys = Object.keys(e).sort().join(',');
  if (keys !== 'code,data,message,requestId') return `status ${a.status}: envelope keys are ${keys}: ${a.body.slice(0, 200)}`;
  if (typeof e.code !== 'string' || typeof e.message !== 'string' || typeof e.requestId !== 'string' || e.requestId === '') {
    return `status ${a.status}: envelope fields of the wrong type: ${a.body.slice(0, 200)}`;
  }
  if (a.headers['x-request-id'] !== e.requestId) return `status ${a.status}: X-Request-Id ${a.headers['x-request-id']} is not the envelope's requestId ${e.requestId}`;
  if (wantOk) {
    if (e.code !== 'ok') return `status ${a.status} with code ${e.code}`;
    return undefined;
  }
  if (!Object.prototype.hasOwnProperty.call(REGISTRY_ERROR_CODES, e.code)) return `status ${a.status}: code "${e.code}" is not in the registry's wire contract`;
  const want = REGISTRY_CODE_STATUS[e.code as keyof typeof REGISTRY_CODE_STATUS];
  if (want !== a.status) return `code ${e.code} answered with status ${a.status}, the contract says ${want}`;
  if (a.status >= 500 && !(ctx.etcdDown ? ETCD_DOWN_5XX : EXPECTED_5XX).has(e.code)) return `5xx: ${a.status} ${e.code}: ${e.message}`;
  if (typeof e.data !== 'object' || e.data === null || Object.keys(e.data).length > 0) return `error answer with data ${JSON.stringify(e.data)}`;
  const leaks = ctx.trustedAdmin ? ADMIN_LEAKS : LEAKS;
  if (leaks.test(e.message)) return `the message leaks internals: ${e.message}`;
  return undefined;
}

/** A replay that failed ends the stream with `event: error` and the envelope's code and message. */
function errorFrameProblem(data: unknown, ctx: AnswerContext): string | undefined {
  const e = data as { code?: unknown; message?: unknown };
  if (!ctx.etcdDown) return `an error frame while etcd is up: ${JSON.stringify(data).slice(0, 300)}`;
  if (e.code !== 'read_failed' || typeof e.message !== 'string') return `an error frame that is not {code: read_failed, message}: ${JSON.stringify(data).slice(0, 300)}`;
  return LEAKS.test(e.message) ? `an error frame leaks internals: ${e.message}` : undefined;
}

function streamProblem(a: RawAnswer, ctx: AnswerContext): string | undefined {
  for (const frame of a.body.split('\n\n')) {
    if (frame === '' || frame.startsWith(':')) continue;
    const data = frame.split('\n').find((l) => l.startsWith('data: '));
    if (data === undefined) {
      if (a.complete || frame !== a.body.split('\n\n').at(-1)) return `an SSE frame without data: ${frame.slice(0, 200)}`;
      continue;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(data.slice(6));
    } catch {
      // The last frame may be cut where the socket was closed.
      if (frame === a.body.split('\n\n').at(-1)) continue;
      return `an SSE frame whose data is not JSON: ${frame.slice(0, 200)}`;
    }
    if (/^event: error$/m.test(frame)) {
      const problem = errorFrameProblem(parsed, ctx);
      if (problem) return problem;
      continue;
    }
    if (!RegistryWatchEventSchema.safeParse(parsed).success) {
      const msg = (parsed as { message?: unknown }).message;
      return `an SSE frame that is not a watch event: ${frame.slice(0, 300)}${typeof msg === 'string' && LEAKS.test(msg) ? ' (and it leaks internals)' : ''}`;
    }
  }
  return undefined;
}

/** Undefined when the answer keeps the contract; otherwise what is wrong with it. */
export function answerProblem(a: RawAnswer, ctx: AnswerContext = {}): string | undefined {
  if (a.status === 100) return undefined;
  if (a.status < 200 || (a.status >= 300 && a.status < 400)) return `unexpected status ${a.status}`;
  // A cut-off answer can only be judged by its status (and a stream by the frames it has).
  const type = a.headers['content-type'] ?? '';
  if (a.status >= 200 && a.status < 300) {
    if (ctx.head) return undefined;
    if (type.startsWith('text/event-stream')) return streamProblem(a, ctx);
    if (!a.complete) return undefined;
    if (type.startsWith('text/plain')) return undefined; // /metrics
    if (a.body.startsWith('[')) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(a.body);
      } catch {
        return `a 2xx body that is not JSON: ${a.body.slice(0, 200)}`;
      }
      return RegistryTargetGroupsSchema.safeParse(parsed).success ? undefined : `a 2xx array that is not SD target groups: ${a.body.slice(0, 200)}`;
    }
    return envelopeProblem(a, true, ctx);
  }
  if (!a.complete || ctx.head) return a.status >= 500 ? `5xx (no body to read): ${a.status}` : undefined;
  return envelopeProblem(a, false, ctx);
}
