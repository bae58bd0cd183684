// What a remote user needs (the interface, errors, HTTP client, mirror) is client.ts; the rest is the store itself.
export * from './client.ts';
export { createLocalStore, type LocalStoreOptions } from './local-store.ts';
export { nextGeneration } from './generation.ts';
export { createStoreHandler, type ServeStoreOptions } from './http/serve-store.ts';
export { asJson, assertKind, checkRevisionWrite, parseForApply, parseStatus } from './apply-checks.ts';
export { type ApplyReads, applyLookupFor, keyspaceHoldersAmong } from './apply-lookup.ts';
