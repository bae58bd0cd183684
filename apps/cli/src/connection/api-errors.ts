/**
 * Admin API failures as the CLI reports them: StoreErrors for what commands already explain
 * (describeStoreError), plain errors that say what to do for refusals.
 */
import { TRPCClientError } from '@trpc/client';
import type { AppRouter } from '@orrery/api';
import type { ValidationError } from '@orrery/spec';
import { StoreError } from '@orrery/store';
import { describeStoreError } from '../resources/store-errors.ts';

type Issue = { path: string; message: string; reason?: string };

export function translateApiError(err: unknown, apiUrl: string): Error {
  if (!(err instanceof TRPCClientError)) return err as Error;
  const data = (err as TRPCClientError<AppRouter>).data as { code?: string; issues?: Issue[] } | undefined;
  switch (data?.code) {
    case 'NOT_FOUND':
      return new StoreError('not_found', err.message);
    case 'CONFLICT':
      return new StoreError('conflict', err.message);
    case 'BAD_REQUEST':
      return new StoreError('invalid', err.message, (data.issues ?? []).map((i) => ({ path: i.path, message: i.message, reason: (i.reason ?? 'invalid') as ValidationError['reason'] })));
    case 'UNAUTHORIZED':
      return new Error(`the admin API at ${apiUrl} refused the token: ${err.message} (use the admin token from <data-dir>/secrets/admin.token, --token-file or ORRERY_API_TOKEN)`);
    case 'FORBIDDEN':
      return new Error(`the admin API refused: ${err.message}`);
    case undefined:
      return new StoreError('unavailable', `the admin API at ${apiUrl} did not answer (${err.message})`);
    default:
      return new StoreError('unavailable', `the admin API at ${apiUrl}: ${err.message}`);
  }
}

/** One message for any failure of an API call, saying what to do about it. */
export function describeApiError(err: unknown, apiUrl: string): string {
  const e = translateApiError(err, apiUrl);
  return e instanceof StoreError ? describeStoreError(e, apiUrl) : e.message;
}
