import { ApiException } from '@kubernetes/client-node';

/**
 * The API server's own sentence for a failed call (its Status message), with the HTTP code;
 * client-node's Error message is a dump of code, body and every response header, which buried
 * the one line an operator needs in the logs.
 */
export function apiErrorText(err: unknown): string {
  if (err instanceof ApiException) {
    let message: string | undefined;
    try {
      message = (JSON.parse(String(err.body)) as { message?: string }).message;
    } catch {
      message = undefined;
    }
    return `${err.code}: ${message ?? String(err.body).slice(0, 300)}`;
  }
  return err instanceof Error ? err.message : String(err);
}
