import type { StateClient } from '@orrery/sdk';
import type { WebSocket } from 'ws';
import type { Logger } from '@orrery/log';
import type { FunctionTrace } from './tracing/invocation-trace.ts';

/** The second argument of every handler. */
export interface FunctionContext {
  /** State client bound to this function's keyspace; undefined for stateless functions. */
  state: StateClient | undefined;
  namespace: string;
  function: string;
  revision: string;
  /** The worker's JSON-lines logger (@orrery/log) on stderr, tagged with the function and revision. */
  log: Logger;
  /**
   * This request's W3C trace context: the worker's span when tracing is on, else the caller's
   * `traceparent` unchanged (all undefined without one). `ctx.state` calls already carry it;
   * pass `ctx.trace.traceparent` on your own outgoing calls to continue the trace (docs/tracing.md).
   */
  trace: FunctionTrace;
  /**
   * This request's invocation id when its Function replays after worker loss
   * (`spec.template.onWorkerLoss: replay`): the same on every run of the request, so pass it as
   * the idempotency key of your own outgoing calls. Undefined otherwise.
   */
  invocationId?: string;
}

/** A handler: Web-standard request in, Web-standard response out. */
export type FunctionHandler = (request: Request, ctx: FunctionContext) => Response | Promise<Response>;

/**
 * A WebSocket handler (the module's `websocket` export): called once per accepted connection,
 * after the 101, with the open socket (the `ws` package's WebSocket), the handshake as a
 * bodiless Request whose `signal` aborts when the connection closes, and the same ctx as HTTP.
 * The connection holds one concurrency slot until it closes, whenever the handler returns.
 */
export type WebSocketHandler = (socket: WebSocket, request: Request, ctx: FunctionContext) => void | Promise<void>;
