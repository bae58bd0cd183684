/**
 * What the data plane needs from a client request and its response — no more — so one
 * data-plane code path serves both ingresses: the raw `net` one (raw-connection.ts) for the
 * common request, and node:http (node-http-ingress.ts) for everything else.
 */
import type { Socket } from 'node:net';

/** A request body as the upstream client reads it (node's IncomingMessage fits this too). */
export interface RequestBody {
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  removeListener(event: 'data' | 'end' | 'error', listener: (...args: never[]) => void): unknown;
  pause(): unknown;
  resume(): unknown;
}

export interface IngressRequest {
  readonly method: string;
  /** The request target as received (origin-form on the raw ingress). */
  readonly url: string;
  /** [name, value, …] as received, like node's `rawHeaders`. */
  readonly rawHeaders: string[];
  readonly remoteAddress: string;
  /** The body, or null when there is none (the data plane also checks the framing headers). */
  readonly body: RequestBody | null;
  /** Some of the body has been handed out: a retry could no longer send it whole. */
  readonly readableDidRead: boolean;
  /** Set only on a WebSocket handshake (upgrade-ingress.ts): the client connection to splice on a 101. */
  readonly upgrade?: UpgradeTunnel;
  /** Set only on an HTTP/2 stream (http2/http2-ingress.ts). */
  readonly http2?: Http2RequestInfo;
}

export interface Http2RequestInfo {
  /** content-type application/grpc*: proxied to the worker over h2c; the router's errors are gRPC statuses. */
  readonly grpc: boolean;
  /** The client's grpc-timeout in ms: waiting for a worker longer than this answers DEADLINE_EXCEEDED. */
  readonly deadlineMs: number | undefined;
}

/**
 * A client connection that asked to switch to WebSocket. On the worker's 101 the data plane hands
 * it the upstream socket: it writes the 101 head and splices the two sockets both ways (no frame
 * is parsed). `onClosed` runs exactly once, when the first of the two sockets closes.
 */
export interface UpgradeTunnel {
  /** Throws (sending nothing) when a header of the worker's 101 cannot be forwarded. */
  splice(statusText: string, headers: string[], upstream: Socket, upstreamHead: Buffer, onClosed: TunnelClosed): void;
}

export interface TunnelClosed {
  onTunnelClosed(): void;
}

/** Told about the client side of a response while an exchange is attached. */
export interface ResponseListener {
  /** The client connection closed before the response ended. */
  onClientClose(): void;
  /** The client is writable again after `write` returned false. */
  onDrain(): void;
}

export interface IngressResponse {
  readonly headersSent: boolean;
  readonly destroyed: boolean;
  /**
   * `headers` is a flat [name, value, …] list without framing or hop-by-hop headers; the ingress
   * adds Date, Connection and the framing (Content-Length kept, else chunked) as node does.
   * Throws, and sends nothing, when a name or value is not valid HTTP.
   */
  writeHead(status: number, statusText: string | undefined, headers: string[]): void;
  /** false: the client is not keeping up; the listener's `onDrain` follows. */
  write(chunk: Buffer): boolean;
  end(lastChunk?: Buffer | string): void;
  destroy(err?: Error): void;
  /** Attach (or with undefined detach) the exchange told about close and drain. */
  setListener(listener: ResponseListener | undefined): void;
  /** HTTP/2 only: trailers to send after the body (flat [name, value, …]); call before `end`. */
  setTrailers?(trailers: string[]): void;
  /** HTTP/2 only: answers one of the router's own errors in the request's protocol (a gRPC status for gRPC). */
  answerError?(status: number, code: string, message: string): void;
}

export type IngressHandler = (req: IngressRequest, res: IngressResponse) => void;
