import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { localSecretPathSegments } from '@orrery/spec';
import type { MissingSecret, SecretLookup } from './template-env.ts';

/** The local platform's secrets: `<data-dir>/secrets/<namespace>/<name>/<key>` (see @orrery/spec local-secrets.ts). */
export function localSecretLookup(dataDir: string): SecretLookup {
  return async (namespace, name, key) => {
    try {
      return await readFile(join(dataDir, ...localSecretPathSegments({ namespace, name, key })), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || err instanceof TypeError) return undefined;
      throw err;
    }
  };
}

/** What a user runs to create a missing local secret. */
export const localSecretHint = (namespace: string) => (m: MissingSecret) => `create it with: orrery secret set ${namespace}/${m.secret} ${m.key} < value-file`;
