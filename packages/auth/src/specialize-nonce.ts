import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Single-use specialize nonces (issue 20 item 2). A generic pool worker may be specialized once,
 * by the executor, and by nobody else. The executor holds the nonce; the worker holds only its
 * **verifier**, `hex(SHA-256(nonce))`, so nothing the worker (or function code later running in
 * it) can read lets anyone specialize this worker or any other one.
 *
 * - Local backend: the executor mints a random nonce per worker process (`mintSpecializeNonce`)
 *   and starts the worker with the verifier in its environment.
 * - Kubernetes: pool pods come from one Deployment template, so the nonce is derived per pod:
 *   `hex(HMAC-SHA256(pool key, "v1:specialize:<namespace>:<pod uid>"))`. The pool key (the
 *   Environment's Secret) is mounted only into the pod's init container, which writes the
 *   verifier into a volume the runtime container reads; the executor derives the same nonce from
 *   the pod's uid. A pod uid is never reused, so a nonce never names two pods.
 */
export const specializeNonceInfo = (namespace: string, podUid: string) => `v1:specialize:${namespace}:${podUid}`;

/** A fresh random nonce (32 bytes, base64url). */
export function mintSpecializeNonce(): string {
  return randomBytes(32).toString('base64url');
}

/** The Kubernetes pool pod's nonce, derived from the Environment's pool key and the pod's uid. */
export function deriveSpecializeNonce(poolKey: string | Buffer, namespace: string, podUid: string): string {
  if (!namespace || !podUid) throw new TypeError('a specialize nonce needs a namespace and a pod uid');
  if (poolKey.length === 0) throw new TypeError('the pool key is empty');
  return createHmac('sha256', poolKey).update(specializeNonceInfo(namespace, podUid)).digest('hex');
}

/** What the worker keeps: `hex(SHA-256(nonce))`. Knowing it does not help to find the nonce. */
export function specializeVerifier(nonce: string): string {
  return createHash('sha256').update(nonce, 'utf8').digest('hex');
}

const HEX_DIGEST = /^[0-9a-f]{64}$/;

/** True when `text` has the form of a verifier (64 lowercase hex digits). */
export const isSpecializeVerifier = (text: string): boolean => HEX_DIGEST.test(text);

/**
 * The worker's check of a presented nonce against its verifier, in constant time: the presented
 * value is hashed first, so the comparison always runs over 32 bytes whatever was sent.
 */
export function nonceMatchesVerifier(presented: string, verifier: string): boolean {
  if (!isSpecializeVerifier(verifier)) return false;
  const got = createHash('sha256').update(presented, 'utf8').digest();
  return timingSafeEqual(got, Buffer.from(verifier, 'hex')) && presented.length > 0;
}
