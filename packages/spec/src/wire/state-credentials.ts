/**
 * The state credentials a stateful function's workers get, shared by the operator (derives and
 * hands them out: worker environment, Kubernetes Secret, specialize body) and the runtime (reads
 * and writes the token file).
 */

/** As in Fission (`.fission-state-token`): claims travel with the token so statesvc can re-derive it. */
export const STATE_TOKEN_FILE = '.orrery-state-token';

/** The token and whom it is for: the JSON body of the state token file. */
export interface StateTokenClaims {
  namespace: string;
  keyspace: string;
  token: string;
}

/** What the operator gives a stateful revision's workers: the claims plus where statesvc is. */
export interface StateCredentials extends StateTokenClaims {
  url: string;
  /** `spec.state.fencing`: the worker's ctx.state claims keys and sends their fences. */
  fencing?: boolean;
}

/** The state token file's text: exactly the claims, never the URL or other fields. */
export const stateTokenFileBody = (c: StateTokenClaims): string => JSON.stringify({ namespace: c.namespace, keyspace: c.keyspace, token: c.token });
