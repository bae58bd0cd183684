export { StateError, createStateClient } from './state-client.ts';
export type { StateClient } from './state-client.ts';
