import type { IncomingMessage } from 'node:http';

/**
 * The request's URL, or undefined when its request-target is not a URL at all. Node's HTTP
 * parser passes absolute-form targets through unchecked (`GET http://[ HTTP/1.1`,
 * `GET http:// HTTP/1.1`), and `new URL` throws on them — in a request listener, that exception
 * ends the process.
 */
export function requestUrl(req: IncomingMessage, base: string): URL | undefined {
  try {
    return new URL(req.url ?? '/', base);
  } catch {
    return undefined;
  }
}

export const BAD_TARGET_MESSAGE = 'the request target is not a valid URL: send a path such as /api/v1/registry/instances?namespace=prod';
