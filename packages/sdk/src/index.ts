export { StateError, createStateClient } from './state-client.ts';
export type { StateClient, StateClientOptions, StateCallTrace, StateOp, WriteOptions } from './state-client.ts';
export { ChangesExpiredError } from './state-changes.ts';
export type { ChangesOptions, StateChange } from './state-changes.ts';
