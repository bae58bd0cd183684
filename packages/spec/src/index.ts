export * from './meta.ts';
export * from './duration.ts';
export * from './effective.ts';
export * from './kinds/environment.ts';
export * from './kinds/function.ts';
export * from './kinds/revision.ts';
export * from './kinds/registry-cluster.ts';
export * from './kinds/state-sync.ts';
