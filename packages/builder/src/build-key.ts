import { createHash } from 'node:crypto';

/**
 * The built package's content address: the archive's sha256 and the builder that built it, so a
 * new builder (say a newer runtime image) builds again and the same pair never builds twice.
 */
export function buildKey(sha256: string, builder: string): string {
  return createHash('sha256').update(`orrery-build-v1\n${sha256}\n${builder}`).digest('hex');
}
