import type { IncomingMessage } from 'node:http';

/** Why a body was refused; each server maps it to its own error code and envelope. */
export type JsonBodyProblem = 'too_large' | 'not_json' | 'aborted';

export class JsonBodyError extends Error {
  constructor(
    readonly problem: JsonBodyProblem,
    message: string,
  ) {
    super(message);
  }

  /** The HTTP status that fits: 413 for a body over the limit, else 400 (the client's request was bad or cut off). */
  get status(): 413 | 400 {
    return this.problem === 'too_large' ? 413 : 400;
  }
}

export interface JsonBodyOptions {
  /** Refuse bodies over this many bytes: the declared Content-Length first, then as bytes arrive. */
  limit: number;
  /** What an empty (or all-whitespace) body reads as; absent = an empty body is not JSON. */
  empty?: unknown;
}

/**
 * Reads and parses a JSON request body of at most `limit` bytes without buffering more: a
 * declared Content-Length over the limit is refused before reading (the rest is drained, so the
 * answer can still go out on the connection), and counting stops the read as soon as it passes.
 */
export async function readJsonBody(req: IncomingMessage, opts: JsonBodyOptions): Promise<unknown> {
  const tooLarge = () => new JsonBodyError('too_large', `request body is larger than ${opts.limit} bytes`);
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > opts.limit) {
    req.resume();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > opts.limit) throw tooLarge();
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof JsonBodyError) throw err;
    // The client went away mid-body ("aborted"): its request failed, not the server.
    throw new JsonBodyError('aborted', 'the request body ended before it was complete (the connection was closed)');
  }
  const text = Buffer.concat(chunks, size).toString('utf8');
  if (opts.empty !== undefined && text.trim() === '') return opts.empty;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new JsonBodyError('not_json', 'request body is not valid JSON');
  }
}
