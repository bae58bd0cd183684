import type { IncomingMessage } from 'node:http';

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
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) {
    req.resume();
    throw new BodyError('payload_too_large', `request body is larger than ${limit} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > limit) throw new BodyError('payload_too_large', `request body is larger than ${limit} bytes`);
      chunks.push(chunk as Buffer);
    }
  } catch (err) {
    if (err instanceof BodyError) throw err;
    // The client went away mid-body ("aborted"): its request, not the registry, failed.
    throw new BodyError('bad_request', 'the request body ended before it was complete (the connection was closed)');
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new BodyError('bad_request', 'request body is not valid JSON');
  }
}
