/** One line per store failure, saying what to do about it. */
import type { StoreError } from '@orrery/store';

export function describeStoreError(err: StoreError, where: string): string {
  switch (err.code) {
    case 'unavailable':
      return `${err.message} — is the platform running (\`orrery up\`)? Point at it with --api-url or ORRERY_API_URL (now ${where}).`;
    case 'invalid':
      return [err.message, ...(err.details ?? []).map((d) => `  ${d.path}: ${d.reason} — ${d.message}`)].join('\n');
    case 'immutable':
      return `${err.message} (revisions are created by the operator from the Function's template; change the Function instead)`;
    case 'conflict':
      return `${err.message} (someone changed it meanwhile: retry)`;
    default:
      return err.message;
  }
}
