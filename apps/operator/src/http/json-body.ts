import type { IncomingMessage } from 'node:http';
import { JsonBodyError, readJsonBody } from '@orrery/control-http';

/** A request body the operator refuses, with the status and stable error code its endpoints answer. */
export class BodyError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The operator's status and code for a body it refuses: the one place control-http's refusals
 * become the operator's. A body cut off mid-read is not one of them: it stays the failed request
 * (500) it always was, for a client that is gone anyway.
 */
function refusalOf(err: JsonBodyError): BodyError | undefined {
  if (err.problem === 'too_large') return new BodyError(413, 'body_too_large', err.message);
  if (err.problem === 'not_json') return new BodyError(400, 'invalid_json', err.message);
  return undefined;
}

/** Reads and parses a JSON request body of at most `limit` bytes (an empty body is not JSON). */
export async function readJson(req: IncomingMessage, limit = 1024 * 1024): Promise<unknown> {
  try {
    return await readJsonBody(req, { limit });
  } catch (err) {
    throw (err instanceof JsonBodyError && refusalOf(err)) || err;
  }
}
