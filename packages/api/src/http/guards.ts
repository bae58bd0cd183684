/**
 * The request guards the admin API applies, for a process in front of it (the console's /trpc
 * route) to apply the same rules without loading the API itself: `@orrery/api/http-guards`.
 * Pure modules only (no database, no router).
 */
export { ORRERY_AUTHORIZATION_HEADER } from '../auth/bearer-credential.ts';
export { parseTrustedProxies, normalizeAddress, type TrustedProxies } from './trusted-proxies.ts';
export { forwardedFacts, type ForwardedFacts, type ForwardedInput } from './forwarded-request.ts';
export { crossOriginRefusal, type OriginCheckInput } from './same-origin-request.ts';
export { isJsonRequest } from './json-content-type.ts';
export { MAX_BATCH_SIZE, batchCallCount } from './batch-size.ts';
export { refusalBody } from './refusal-body.ts';
