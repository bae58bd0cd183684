export * from './statestore.ts';
export * from './resources.ts';
