import type { StateClient } from '@orrery/sdk';
import type { Logger } from '@orrery/log';

/** The second argument of every handler. */
export interface FunctionContext {
  /** State client bound to this function's keyspace; undefined for stateless functions. */
  state: StateClient | undefined;
  namespace: string;
  function: string;
  revision: string;
  /** The worker's JSON-lines logger (@orrery/log) on stderr, tagged with the function and revision. */
  log: Logger;
}

/** A handler: Web-standard request in, Web-standard response out. */
export type FunctionHandler = (request: Request, ctx: FunctionContext) => Response | Promise<Response>;
