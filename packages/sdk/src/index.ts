export { StateError, createStateClient } from './state-client.ts';
export type { StateClient, StateCallTrace, StateOp } from './state-client.ts';
