import type { ServerResponse } from 'node:http';
import type { StateErrorBody } from '@orrery/spec';
import { ERROR_STATUS, StateStoreError, type ErrorCode } from '@orrery/statestore';

export class HttpError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

/** Every error leaves as `{error, code}` with the RFC-0023 status for its code. */
export function sendError(res: ServerResponse, err: unknown, log: (msg: string) => void): { code: ErrorCode; status: number } {
  let code: ErrorCode = 'internal';
  let message = 'internal error; see the statesvc log';
  if (err instanceof HttpError || err instanceof StateStoreError) {
    code = err.code;
    message = err.message;
  } else {
    log(`internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  }
  const status = ERROR_STATUS[code];
  if (!res.headersSent) {
    const body = JSON.stringify({ error: message, code } satisfies StateErrorBody);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  } else {
    res.destroy();
  }
  return { code, status };
}
