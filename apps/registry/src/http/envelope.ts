import type { ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { REGISTRY_CODE_STATUS, type RegistryCode } from '@orrery/spec';

/** The seed's response codes and their statuses: the wire contract in @orrery/spec (registry-envelope.ts). */
export type ErrorCode = RegistryCode;

export const STATUS_BY_CODE: Record<ErrorCode, number> = REGISTRY_CODE_STATUS;

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
  sendEnvelopeJson(res, requestId, status ?? STATUS_BY_CODE[code], JSON.stringify({ code, message, data, requestId } satisfies Envelope));
}

/** Writes an envelope already encoded (the instances answer builds its own: instances-answer.ts). */
export function sendEnvelopeJson(res: ServerResponse, requestId: string, status: number, body: string): void {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'x-request-id': requestId,
  });
  res.end(body);
}

export function sendOk(res: ServerResponse, requestId: string, data: unknown): void {
  sendEnvelope(res, requestId, 'ok', '', data);
}
