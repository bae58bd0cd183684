export * from './types.ts';
export * from './errors.ts';
export * from './key-order.ts';
export * from './memory-driver.ts';
export * from './postgres-driver.ts';
export * from './scoped-store.ts';
export * from './open-driver.ts';
