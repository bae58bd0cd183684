import type { ErrorCode } from '../http/envelope.ts';

export interface ClassifiedError {
  code: ErrorCode;
  message: string;
}

/**
 * Turns an etcd3/gRPC failure into the seed's codes. `fallback` names what was being done
 * (read_failed, scan_failed, propose_failed, conf_change_failed) and is used when etcd answered
 * with something other than "no leader" or "unreachable".
 */
export function classifyEtcdError(err: unknown, fallback: ErrorCode): ClassifiedError {
  const text = err instanceof Error ? err.message : String(err);
  if (/no leader|leader changed|not leader|raft: proposal dropped/i.test(text)) {
    return { code: 'not_leader', message: `etcd has no leader right now (an election is running); retry shortly (${shorten(text)})` };
  }
  if (/deadline|timed out|timeout|UNAVAILABLE|No connection established|ECONNREFUSED|circuit|ECONNRESET|too many requests/i.test(text)) {
    return { code: fallback, message: `etcd did not answer in time; retry shortly (${shorten(text)})` };
  }
  return { code: fallback, message: shorten(text) };
}

function shorten(text: string): string {
  const first = text.split('\n')[0] ?? text;
  return first.length > 300 ? `${first.slice(0, 300)}…` : first;
}
