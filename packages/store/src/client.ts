/**
 * The store as its remote users see it — the interface, its errors, the HTTP client and the
 * watch-fed mirror — without the embedded database: a process that only talks to the operator's
 * store (the router) imports this, so PGlite, drizzle and postgres.js stay out of its bundle and
 * its start-up (docs/performance.md, memory).
 */
export * from './types.ts';
export { createHttpStore, type HttpStoreOptions } from './http/store-client.ts';
export { STORE_PREFIX } from './http/routes.ts';
export { mirrorStore, type MirroredObjects, type StoreMirror, type StoreMirrorOptions } from './store-mirror.ts';
export { type WatchEnding, watchEnding } from './watch-ending.ts';
