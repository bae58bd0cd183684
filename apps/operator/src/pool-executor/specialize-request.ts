import type { RegistryCredentialFile, Revision, StateCredentials } from '@orrery/spec';

/**
 * The `POST /v1/specialize` body a pool worker loads a revision from (apps/runtime
 * specialize.ts), the same for local workers and Kubernetes pool pods. `source` is resolved by
 * the caller: a Kubernetes ConfigMap reference becomes inline code there, a package the built
 * folder as the worker sees it (`dir`, with `main`: package-source.ts). Credentials travel only
 * in this body (never in a pool pod's spec): state token, registry registration credential, and
 * the template's env with its secret references resolved by the executor (`env`).
 */
export function specializeRequest(
  rev: Revision,
  source: { inline?: string; url?: string } | { dir: string; main?: string },
  credentials?: StateCredentials,
  registryCredential?: RegistryCredentialFile,
  env: Record<string, string> = {},
) {
  const t = rev.spec.template;
  return {
    namespace: rev.metadata.namespace,
    function: rev.spec.function,
    revision: rev.metadata.name,
    source,
    entrypoint: t.entrypoint,
    containerConcurrency: t.containerConcurrency,
    timeoutSeconds: t.timeoutSeconds,
    stateCredentials: credentials ? { namespace: credentials.namespace, keyspace: credentials.keyspace, token: credentials.token } : undefined,
    stateUrl: credentials?.url,
    // spec.state.fencing: the specialized worker's ctx.state fences its writes.
    ...(credentials?.fencing ? { stateFencing: true } : {}),
    // The revision's registration credential: the worker registers as this revision only.
    registryCredential,
    // spec.template.env, secrets resolved: set in the worker's environment before the code loads.
    env,
  };
}
