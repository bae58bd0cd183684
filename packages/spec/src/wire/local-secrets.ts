import { DNS1123_LABEL } from '../meta.ts';
import { SECRET_KEY_PATTERN, SECRET_NAME_PATTERN } from '../kinds/function.ts';

/**
 * The local platform's stand-in for Kubernetes Secrets, shared by the operator (reads, when a
 * worker starts) and the CLI (`orrery secret set|list|delete`, writes): one file per key,
 * `<data-dir>/secrets/<namespace>/<name>/<key>`, holding the value's bytes as they are. Folders
 * 0700 and files 0600, owned by whoever runs the platform: function workers never read them (the
 * operator resolves the value and hands it to the one worker that needs it).
 */
export const LOCAL_SECRETS_DIR = 'secrets';

export type LocalSecretRef = { namespace: string; name: string; key?: string };

/** What is wrong with a reference, or undefined. Checked before any path is built: no "..", no "/". */
export function localSecretRefProblem(ref: LocalSecretRef): string | undefined {
  if (!DNS1123_LABEL.test(ref.namespace) || ref.namespace.length > 63) return `namespace "${ref.namespace}" is not a DNS-1123 label`;
  if (!SECRET_NAME_PATTERN.test(ref.name) || ref.name.length > 253) return `secret name "${ref.name}" is not a DNS-1123 subdomain (lower-case letters, digits, "-" and ".")`;
  if (ref.key !== undefined && (!SECRET_KEY_PATTERN.test(ref.key) || ref.key === '.' || ref.key === '..' || ref.key.length > 253)) {
    return `secret key "${ref.key}" must be letters, digits, "-", "_" and "." (not "." or "..")`;
  }
  return undefined;
}

/** Path segments under the data dir: `secrets/<namespace>/<name>[/<key>]`. Throws on a bad reference. */
export function localSecretPathSegments(ref: LocalSecretRef): string[] {
  const problem = localSecretRefProblem(ref);
  if (problem) throw new TypeError(problem);
  return [LOCAL_SECRETS_DIR, ref.namespace, ref.name, ...(ref.key === undefined ? [] : [ref.key])];
}
