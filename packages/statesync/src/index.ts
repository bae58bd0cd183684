export * from './syncable.ts';
