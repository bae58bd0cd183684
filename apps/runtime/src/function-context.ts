import type { StateClient } from '@orrery/sdk';
import type { Logger } from './logger.ts';

/** The second argument of every handler. */
export interface FunctionContext {
  /** State client bound to this function's keyspace; undefined for stateless functions. */
  state: StateClient | undefined;
  namespace: string;
  function: string;
  revision: string;
  /** JSON-lines logger on the worker's stderr, tagged with the function and revision. */
  log: Logger;
}

/** A handler: Web-standard request in, Web-standard response out. */
export type FunctionHandler = (request: Request, ctx: FunctionContext) => Response | Promise<Response>;
