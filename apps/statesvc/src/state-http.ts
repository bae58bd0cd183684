import type { IncomingHttpHeaders } from 'node:http';

/**
 * What statesvc's state-key route reads of a request: node's IncomingMessage has it, and so does
 * a request of the raw ingress (raw-state-exchange.ts).
 */
export interface StateHttpRequest {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  readonly headers: IncomingHttpHeaders;
}

/** What the state-key route does with its response: node's ServerResponse, or the raw exchange. */
export interface StateHttpResponse {
  readonly headersSent: boolean;
  readonly statusCode: number;
  /** Headers as a flat [name, value, …] list or an object, as node's writeHead takes them. */
  writeHead(status: number, headers: string[] | Record<string, string | number>): unknown;
  /** Before writeHead: one more header on the answer. */
  setHeader(name: string, value: string): unknown;
  end(body?: string): unknown;
  destroy(): unknown;
}
