export * from './connect.ts';
export * from './migrate.ts';
export * from './test-database.ts';
export * as schema from './schema/index.ts';
export * from './schema/index.ts';
