import { readFile, unlink } from 'node:fs/promises';
import { isSpecializeVerifier, nonceMatchesVerifier } from '@orrery/auth';

/**
 * Who may specialize this pool worker, and how often: once, by whoever holds the nonce whose
 * SHA-256 is the worker's verifier (the executor; see @orrery/auth specialize-nonce.ts). The
 * first call with the right nonce consumes it; every later call — a replay, or a specialize for
 * another function — is refused, as is any call to a worker that has no verifier.
 *
 * Pure: the caller persists consumption (removes the verifier file) through `onConsumed`.
 */
export type SpecializeRefusal = { status: 401 | 409; body: { error: string; code: string } };

export class SpecializeGate {
  private verifier: string | undefined;
  private consumed: boolean;

  constructor(o: { verifier?: string; spent?: boolean; onConsumed?: () => void }) {
    this.verifier = o.verifier;
    this.consumed = o.spent === true;
    this.onConsumed = o.onConsumed;
  }

  private readonly onConsumed?: () => void;

  /** Nonce used (or the worker started spent): nothing can specialize it any more. */
  get spent(): boolean {
    return this.consumed;
  }

  /** Checks `Authorization: Bearer <nonce>`; undefined = go ahead (the nonce is now used up). */
  admit(authorization: string | undefined): SpecializeRefusal | undefined {
    if (this.consumed) {
      return { status: 409, body: { error: 'this pool worker was specialized already (its specialize nonce is single-use); specialize another pool worker', code: 'specialize_nonce_used' } };
    }
    if (this.verifier === undefined) {
      return {
        status: 401,
        body: { error: 'this pool worker has no specialize verifier (--specialize-verifier-file or ORRERY_SPECIALIZE_VERIFIER), so nobody can specialize it', code: 'unauthorized' },
      };
    }
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    // Compared even without a header, so "no header" and "wrong nonce" cost the same.
    const ok = nonceMatchesVerifier(m?.[1] ?? '', this.verifier) && m !== null;
    if (!ok) return { status: 401, body: { error: 'specialize needs Authorization: Bearer <this worker\'s specialize nonce, from the executor>', code: 'unauthorized' } };
    this.consumed = true;
    this.verifier = undefined;
    this.onConsumed?.();
    return undefined;
  }
}

export class SpecializeVerifierError extends Error {
  override name = 'SpecializeVerifierError';
}

/**
 * The verifier a pool worker starts with: from a file (Kubernetes: written by the pod's init
 * container into a memory volume) or from the environment (local backend). A missing file means
 * the worker was specialized before and its container restarted (the file is removed when the
 * nonce is used), so it starts spent; a malformed one is a configuration error.
 */
export async function readSpecializeVerifier(o: { file?: string; env?: string }): Promise<{ verifier?: string; spent: boolean }> {
  if (o.env !== undefined) {
    const v = o.env.trim();
    if (!isSpecializeVerifier(v)) throw new SpecializeVerifierError('ORRERY_SPECIALIZE_VERIFIER must be 64 lowercase hex digits (SHA-256 of the specialize nonce)');
    return { verifier: v, spent: false };
  }
  if (o.file === undefined) return { spent: false };
  let text: string;
  try {
    text = (await readFile(o.file, 'utf8')).trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { spent: true };
    throw new SpecializeVerifierError(`cannot read specialize verifier file ${o.file}: ${(err as Error).message}`);
  }
  if (!isSpecializeVerifier(text)) throw new SpecializeVerifierError(`specialize verifier file ${o.file} must hold 64 lowercase hex digits (SHA-256 of the specialize nonce)`);
  return { verifier: text, spent: false };
}

/** Removes the verifier file once its nonce is used, so a restarted container starts spent. */
export async function removeSpecializeVerifier(file: string): Promise<void> {
  await unlink(file).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
  });
}
