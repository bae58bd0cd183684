import type { ErrorCode } from '../http/envelope.ts';

export interface ClassifiedError {
  code: ErrorCode;
  /** What to tell the client: what failed and what to do. Never etcd's own text. */
  message: string;
  /** etcd's (or the error's) own text, first line, shortened: for the registry's log and the admin API. */
  detail: string;
}

const FALLBACK_MESSAGES: Partial<Record<ErrorCode, string>> = {
  read_failed: 'reading from etcd failed; retry shortly, and tell the registry\'s operator if it persists (quote the requestId)',
  scan_failed: 'scanning etcd failed; retry shortly, and tell the registry\'s operator if it persists (quote the requestId)',
  propose_failed: 'etcd did not take the write; retry shortly, and tell the registry\'s operator if it persists (quote the requestId)',
};

/**
 * Turns an etcd3/gRPC failure into the seed's codes. `fallback` names what was being done
 * (read_failed, scan_failed, propose_failed, conf_change_failed) and is used when etcd answered
 * with something other than "no leader" or "unreachable". The message says what to do and keeps
 * etcd's text out — it names members' addresses and gRPC internals, and the public listener
 * answers anyone who reaches it; `detail` carries that text for the log (and the admin API).
 */
export function classifyEtcdError(err: unknown, fallback: ErrorCode): ClassifiedError {
  const text = err instanceof Error ? err.message : String(err);
  const detail = shorten(err instanceof Error ? `${err.constructor.name}: ${text}` : text);
  if (/no leader|leader changed|not leader|raft: proposal dropped/i.test(text)) {
    return { code: 'not_leader', message: 'etcd has no leader right now (an election is running); retry shortly', detail };
  }
  if (/deadline|timed out|timeout|UNAVAILABLE|No connection established|ECONNREFUSED|circuit|ECONNRESET|too many requests/i.test(text)) {
    return { code: fallback, message: 'etcd did not answer in time; retry shortly', detail };
  }
  return { code: fallback, message: FALLBACK_MESSAGES[fallback] ?? 'etcd refused the request; retry shortly, and tell the registry\'s operator if it persists (quote the requestId)', detail };
}

function shorten(text: string): string {
  const first = text.split('\n')[0] ?? text;
  return first.length > 300 ? `${first.slice(0, 300)}…` : first;
}
