/**
 * The store's HTTP surface, served by the process that owns an embedded store (the operator)
 * so other local processes (router, statesvc, CLI) share it:
 *
 *   GET    /v1/store/{kind}?namespace=&label=k=v        → {items, resourceVersion}
 *   GET    /v1/store/{kind}/{namespace}/{name}          → object | 404
 *   GET    /v1/store/{kind}/watch?namespace=&sinceResourceVersion=  → NDJSON stream of events
 *   POST   /v1/store/apply   (body = object; header If-Match = resourceVersion) → object
 *   PUT    /v1/store/{kind}/{namespace}/{name}/status   (body = status)      → object
 *   DELETE /v1/store/{kind}/{namespace}/{name}                               → {deleted}
 *
 * Errors are `{error, code, details?}` with the StoreError's status.
 */
export const STORE_PREFIX = '/v1/store/';
/** Bodies above this are refused (413): resources are small. */
export const MAX_BODY_BYTES = 1 << 20;
/** A comment line so proxies keep an idle watch open. */
export const WATCH_KEEPALIVE_MS = 15_000;
