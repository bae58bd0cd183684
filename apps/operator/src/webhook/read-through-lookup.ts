import type { Environment, ValidationLookup } from '@orrery/spec';
import type { AdmissionRequest, AdmissionResponse } from './admission.ts';

/** Reads one Environment from the source of truth (the API server); undefined = there is none. */
export type ReadEnvironment = (namespace: string, name: string) => Promise<Environment | undefined>;

/**
 * Decides with the cached lookup first; when a rule asked for an Environment the cache does not
 * hold, reads those Environments from the source and decides again with them. An informer lags
 * the API server, so an Environment applied a moment before the Function that names it would
 * otherwise look absent and the Function would be admitted unjudged. A failed read decides as
 * the cache did (the reconciler still refuses the Function later) and is reported to `onReadError`.
 */
export async function decideReadingThrough(
  decide: (request: AdmissionRequest, lookup?: ValidationLookup) => AdmissionResponse,
  request: AdmissionRequest,
  cached: ValidationLookup | undefined,
  read: ReadEnvironment | undefined,
  onReadError: (namespace: string, name: string, err: unknown) => void = () => {},
): Promise<AdmissionResponse> {
  if (!cached || !read) return decide(request, cached);
  const fetched = new Map<string, Environment | undefined>();
  const missed = new Map<string, { namespace: string; name: string }>();
  const lookup: ValidationLookup = {
    ...cached,
    environment(namespace, name) {
      const key = `${namespace}/${name}`;
      if (fetched.has(key)) return fetched.get(key);
      const env = cached.environment(namespace, name);
      if (env === undefined) missed.set(key, { namespace, name });
      return env;
    },
  };
  const first = decide(request, lookup);
  if (missed.size === 0) return first;
  await Promise.all(
    [...missed].map(async ([key, { namespace, name }]) => {
      try {
        fetched.set(key, await read(namespace, name));
      } catch (err) {
        fetched.set(key, undefined);
        onReadError(namespace, name, err);
      }
    }),
  );
  return decide(request, lookup);
}
