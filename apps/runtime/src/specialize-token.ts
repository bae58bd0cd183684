import { createHash, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';

/**
 * Who may specialize a pool worker. On Kubernetes every pod can reach every other pod's port,
 * so without a check any pod could load its own code into a generic worker (and receive the
 * state credentials of the next function). The executor sends `Authorization: Bearer <token>`
 * with the token of the Environment's Secret, mounted into the worker as
 * `--specialize-token-file`.
 */
export async function readSpecializeToken(path: string): Promise<string> {
  let text: string;
  try {
    text = (await readFile(path, 'utf8')).trim();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(code === 'ENOENT' ? `specialize token file ${path} does not exist (is the pool's specialize Secret mounted?)` : `cannot read specialize token file ${path}: ${(err as Error).message}`);
  }
  if (text === '') throw new Error(`specialize token file ${path} is empty`);
  return text;
}

/**
 * A checker for the `Authorization` header. Both sides are hashed first so the comparison takes
 * the same time whatever the length of what the caller sent (timingSafeEqual needs equal lengths).
 */
export function bearerChecker(token: string): (authorization: string | undefined) => boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  const want = digest(token);
  return (authorization) => {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    // Still compare on a missing header, so "no header" and "wrong token" cost the same.
    const got = digest(m?.[1] ?? '');
    return timingSafeEqual(got, want) && m !== null;
  };
}
