/**
 * API server refusals as the CLI reports them: StoreErrors for what the commands already
 * explain (not found, conflicts naming the fields and their managers, invalid objects with the
 * API server's causes), plain errors that say what to check for the rest.
 */
import type { ValidationError } from '@orrery/spec';
import { StoreError } from '@orrery/store';

interface StatusBody {
  message?: string;
  reason?: string;
  details?: { causes?: Array<{ reason?: string; field?: string; message?: string }> };
}

function body(raw: unknown): StatusBody {
  if (typeof raw === 'string') {
    try {
      return JSON.parse(raw) as StatusBody;
    } catch {
      return { message: raw };
    }
  }
  return raw && typeof raw === 'object' ? raw : {};
}

/** An answer of the API server with `status` and `rawBody` (client-node's ApiException). */
export function translateKubeError(status: number | undefined, rawBody: unknown, server: string, cause?: Error): Error {
  if (status === undefined) return new Error(`the Kubernetes API server at ${server} did not answer (${cause?.message ?? 'no response'}): check --kubeconfig / --context / $KUBECONFIG`);
  const b = body(rawBody);
  const message = b.message ?? `HTTP ${status}`;
  const causes = b.details?.causes ?? [];
  switch (status) {
    case 401:
      return new Error(`the Kubernetes API server at ${server} did not accept the credentials of the kubeconfig (${message})`);
    case 403:
      return new Error(`the Kubernetes API server refused: ${message} (RBAC: the user needs these verbs on orrery.dev resources)`);
    case 404:
      return new StoreError('not_found', /the server could not find the requested resource/.test(message) ? `${message}: are Orrery's CRDs installed (helm install orrery charts/orrery)?` : message);
    case 409: {
      const fields = causes.filter((c) => c.reason === 'FieldManagerConflict' && c.field);
      if (fields.length === 0) return new StoreError('conflict', message);
      const owned = fields.map((c) => `${c.field} (owned by "${/conflict with "([^"]+)"/.exec(c.message ?? '')?.[1] ?? 'another manager'}")`).join(', ');
      return new StoreError('conflict', `fields another field manager owns: ${owned}; take them over with --force-conflicts, or change them where they are managed`);
    }
    case 422:
      return new StoreError(
        'invalid',
        message,
        // The CRDs' CEL rules end their message with the webhook's reason code: `… (reason)`.
        causes.map((c) => ({ path: (c.field ?? '').replace(/^\./, ''), message: c.message ?? '', reason: (/\(([a-z0-9_]+)\)\W*$/.exec(c.message ?? '')?.[1] ?? 'invalid') as ValidationError['reason'] })),
      );
    default:
      return new Error(`the Kubernetes API server answered ${status}: ${message}`);
  }
}
