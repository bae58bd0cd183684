/**
 * The resource commands' view of the platform through the admin API (tRPC): the same
 * procedures the console calls, so every change the CLI makes is role-checked and audited.
 * Errors come back as StoreErrors (or plain errors for refusals) so commands report them alike.
 */
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import type { AppRouter } from '@orrery/api';
import type { Resource, ResourceKind, ValidationError } from '@orrery/spec';
import { StoreError, type ListResult } from '@orrery/store';
import type { ApplyOutcome } from '../resources/apply-outcome.ts';

/** What apply/get/delete need from a store; both the HTTP store and the API provide it. */
export interface CliStore {
  get(kind: ResourceKind, namespace: string, name: string): Promise<Resource | undefined>;
  list(kind: ResourceKind, opts?: { namespace?: string; labels?: Record<string, string> }): Promise<ListResult>;
  /** Creates or replaces, and says which (like kubectl: created | configured | unchanged). */
  apply(obj: unknown): Promise<{ object: Resource; outcome: ApplyOutcome }>;
  delete(kind: ResourceKind, namespace: string, name: string): Promise<boolean>;
  close(): Promise<void>;
}

type Issue = { path: string; message: string; reason?: string };

function translate(err: unknown, apiUrl: string): Error {
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

export function createApiStore(apiUrl: string, token: string): CliStore {
  const client = createTRPCClient<AppRouter>({
    links: [httpLink({ url: `${apiUrl.replace(/\/+$/, '')}/trpc`, headers: () => ({ authorization: `Bearer ${token}` }) })],
  });
  const call = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      throw translate(err, apiUrl);
    }
  };
  return {
    async get(kind, namespace, name) {
      try {
        return await call(() => client.resources.get.query({ kind, namespace, name }));
      } catch (err) {
        if (err instanceof StoreError && err.code === 'not_found') return undefined;
        throw err;
      }
    },
    list: (kind, opts = {}) => call(() => client.resources.list.query({ kind, namespace: opts.namespace, labels: opts.labels })),
    // The API answers the outcome itself: no read before the write.
    apply: (obj) => call(() => client.resources.applyManifest.mutate({ manifest: obj as Record<string, unknown> })),
    delete: async (kind, namespace, name) => (await call(() => client.resources.delete.mutate({ kind, namespace, name }))).deleted,
    close: async () => {},
  };
}
