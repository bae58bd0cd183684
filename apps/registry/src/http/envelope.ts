import type { ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';

/** The seed's response codes, plus revision_expired for watch resumption past compaction. */
export type ErrorCode =
  | 'ok'
  | 'bad_request'
  | 'not_found'
  | 'not_ready'
  | 'not_leader'
  | 'unauthorized'
  | 'forbidden'
  | 'read_failed'
  | 'scan_failed'
  | 'propose_failed'
  | 'conf_change_failed'
  | 'revision_expired'
  | 'payload_too_large'
  | 'method_not_allowed';

export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  ok: 200,
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conf_change_failed: 409,
  revision_expired: 410,
  payload_too_large: 413,
  not_ready: 503,
  not_leader: 503,
  read_failed: 503,
  scan_failed: 503,
  propose_failed: 503,
};

export interface Envelope<T = unknown> {
  code: ErrorCode;
  message: string;
  data: T;
  requestId: string;
}

export function newRequestId(): string {
  return randomUUID();
}

/** Writes `{code, message, data, requestId}` with the HTTP status that fits the code. */
export function sendEnvelope(res: ServerResponse, requestId: string, code: ErrorCode, message: string, data: unknown = {}, status?: number): void {
  const body = JSON.stringify({ code, message, data, requestId } satisfies Envelope);
  res.writeHead(status ?? STATUS_BY_CODE[code], {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'x-request-id': requestId,
  });
  res.end(body);
}

export function sendOk(res: ServerResponse, requestId: string, data: unknown): void {
  sendEnvelope(res, requestId, 'ok', '', data);
}
