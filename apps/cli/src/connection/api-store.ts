/**
 * The resource commands' view of the platform through the admin API (tRPC): the same
 * procedures the console calls, so every change the CLI makes is role-checked and audited.
 * Errors come back as StoreErrors (or plain errors for refusals) so commands report them alike.
 */
import type { Resource, ResourceKind, Source } from '@orrery/spec';
import { StoreError, type ListResult } from '@orrery/store';
import type { DescribedEvent } from '../describe/function-description.ts';
import type { WorkerLine } from '../describe/worker-errors.ts';
import type { ApplyOutcome } from '../resources/apply-outcome.ts';
import { createApiClient } from './api-client.ts';
import { translateApiError } from './api-errors.ts';

/** What apply/get/delete need from a store; both the HTTP store and the API provide it. */
export interface CliStore {
  get(kind: ResourceKind, namespace: string, name: string): Promise<Resource | undefined>;
  list(kind: ResourceKind, opts?: { namespace?: string; labels?: Record<string, string> }): Promise<ListResult>;
  /** Creates or replaces, and says which (like kubectl: created | configured | unchanged). */
  apply(obj: unknown, opts?: { force?: boolean }): Promise<{ object: Resource; outcome: ApplyOutcome }>;
  delete(kind: ResourceKind, namespace: string, name: string): Promise<boolean>;
  /**
   * Where `orrery deploy --code` puts a function's code, when not inline in the Function (on
   * Kubernetes: a ConfigMap it writes first). Absent: inline.
   */
  codeSource?(namespace: string, functionName: string, code: string): Promise<Source>;
  /**
   * Puts a package archive where the platform's builds find it (docs/packages.md): on Kubernetes
   * the ConfigMap orrery-package-<sha256[:20]>; locally PUT /v1/packages/ on the operator.
   */
  putPackage?(namespace: string, sha256: string, archive: Buffer): Promise<'uploaded' | 'present'>;
  /** Recent Events about these objects (Kubernetes keeps them; the local platform does not). */
  events?(namespace: string, objectNames: readonly string[]): Promise<DescribedEvent[]>;
  /** A function's worker log lines, when the backend serves them (else the CLI reads the local data dir). */
  workerLogLines?(namespace: string, functionName: string): Promise<WorkerLine[]>;
  close(): Promise<void>;
}

export function createApiStore(apiUrl: string, token: string): CliStore {
  const client = createApiClient(apiUrl, token);
  const call = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      throw translateApiError(err, apiUrl);
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
    apply: (obj, opts) => call(() => client.resources.applyManifest.mutate({ manifest: obj as Record<string, unknown>, ...(opts?.force ? { force: true } : {}) })),
    delete: async (kind, namespace, name) => (await call(() => client.resources.delete.mutate({ kind, namespace, name }))).deleted,
    close: async () => {},
  };
}
