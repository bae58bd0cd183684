import type { StateHttpResponse } from './state-http.ts';
import { STATE_GENERIC_ERROR_MESSAGE, type StateErrorBody } from '@orrery/spec';
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

/** Where the detail of a 5xx goes (statesvc: an ErrorLog, see error-log.ts). */
export type ErrorReporter = (code: ErrorCode, err: unknown) => void;

/**
 * Every error leaves as `{error, code}` with the RFC-0023 status for its code. An HttpError's
 * message is statesvc's own words (any status); any other 5xx answers only the fixed text of its
 * code (STATE_GENERIC_ERROR_MESSAGE) and the error itself — driver or database text, SQL, paths —
 * goes to `report`, never into the body or a header.
 */
export function sendError(res: StateHttpResponse, err: unknown, report: ErrorReporter): { code: ErrorCode; status: number } {
  let code: ErrorCode = 'internal';
  if (err instanceof HttpError || err instanceof StateStoreError) code = err.code;
  let message: string;
  if (err instanceof HttpError) {
    // statesvc's own words (also for its own 503s, e.g. keyspaces not loaded yet): nothing to hide.
    message = err.message;
  } else if (code === 'internal' || code === 'capability_unavailable') {
    message = STATE_GENERIC_ERROR_MESSAGE[code];
    report(code, err);
  } else {
    message = (err as Error).message;
    // A 4xx a database raised (a value it would not store) still tells the operator that input validation missed something.
    if ((err as Error).cause !== undefined) report(code, err);
  }
  const status = ERROR_STATUS[code];
  if (!res.headersSent) {
    // A `fenced` refusal names the key's current fence, for the client to tell "moved" from "never claimed".
    const fence = err instanceof StateStoreError && code === 'fenced' ? err.fence : undefined;
    const body = JSON.stringify((fence === undefined ? { error: message, code } : { error: message, code, fence }) satisfies StateErrorBody);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  } else {
    res.destroy();
  }
  return { code, status };
}
