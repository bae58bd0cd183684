export * from './types.ts';
export { createLocalStore, type LocalStoreOptions } from './local-store.ts';
export { nextGeneration } from './generation.ts';
export { createStoreHandler, type ServeStoreOptions } from './http/serve-store.ts';
export { createHttpStore, type HttpStoreOptions } from './http/store-client.ts';
export { STORE_PREFIX } from './http/routes.ts';
export { mirrorStore, type MirroredObjects, type StoreMirror, type StoreMirrorOptions } from './store-mirror.ts';
export { asJson, assertKind, checkRevisionWrite, parseForApply, parseStatus } from './apply-checks.ts';
export { type ApplyReads, applyLookupFor, keyspaceHoldersAmong } from './apply-lookup.ts';
