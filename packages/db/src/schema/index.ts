export * from './statestore.ts';
export * from './resources.ts';
export * from './audit.ts';
export * from './auth.ts';
export * from './rollups.ts';
