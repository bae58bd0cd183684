import type { IncomingMessage } from 'node:http';
import { JsonBodyError, readJsonBody } from '@orrery/control-http';

export const MAX_BODY_BYTES = 64 * 1024;

export class BodyError extends Error {
  constructor(
    readonly code: 'bad_request' | 'payload_too_large',
    message: string,
  ) {
    super(message);
  }
}

/** Reads and parses a JSON body, refusing more than `limit` bytes. An empty body reads as {}. */
export async function readJson(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<unknown> {
  try {
    return await readJsonBody(req, { limit, empty: {} });
  } catch (err) {
    if (!(err instanceof JsonBodyError)) throw err;
    throw new BodyError(err.problem === 'too_large' ? 'payload_too_large' : 'bad_request', err.message);
  }
}
