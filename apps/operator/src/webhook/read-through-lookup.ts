import type { Environment, KeyspaceClaim, ValidationLookup } from '@orrery/spec';
import { keyspaceHoldersAmong } from '@orrery/store';
import type { AdmissionRequest, AdmissionResponse } from './admission.ts';

/** The source of truth (the API server) behind the webhook's caches; an absent reader = trust the cache. */
export interface AdmissionSource {
  /** One Environment; undefined = there is none. */
  environment?(namespace: string, name: string): Promise<Environment | undefined>;
  /** Every Function of one namespace, as stored. */
  functions?(namespace: string): Promise<readonly unknown[]>;
}

/** A read of the source failed: what was read, and why. */
export type SourceReadError = (what: string, err: unknown) => void;

/**
 * Decides with the cached lookup first; when a rule found nothing in the cache — an Environment
 * it does not hold, no other Function declaring the keyspace — reads those from the source and
 * decides again with them. An informer lags the API server: an Environment applied a moment
 * before the Function that names it, or a Function that took the keyspace a moment before, would
 * otherwise look absent and the Function would be admitted unjudged. Only misses are read, so a
 * cached answer that already decides costs no call. A failed read decides as the cache did (the
 * reconcilers still refuse such a Function later) and is reported to `onReadError`.
 */
export async function decideReadingThrough(
  decide: (request: AdmissionRequest, lookup?: ValidationLookup) => AdmissionResponse,
  request: AdmissionRequest,
  cached: ValidationLookup | undefined,
  source: AdmissionSource = {},
  onReadError: SourceReadError = () => {},
): Promise<AdmissionResponse> {
  if (!cached) return decide(request);
  const environments = new Map<string, Environment | undefined>();
  const functions = new Map<string, readonly unknown[]>();
  const missedEnvironments = new Map<string, { namespace: string; name: string }>();
  const missedNamespaces = new Set<string>();
  const lookup: ValidationLookup = {
    ...cached,
    environment(namespace, name) {
      const key = `${namespace}/${name}`;
      if (environments.has(key)) return environments.get(key);
      const env = cached.environment(namespace, name);
      if (env === undefined && source.environment) missedEnvironments.set(key, { namespace, name });
      return env;
    },
  };
  if (cached.keyspaceHolders) {
    const holders = cached.keyspaceHolders.bind(cached);
    lookup.keyspaceHolders = (namespace, keyspace): readonly KeyspaceClaim[] => {
      const read = functions.get(namespace);
      if (read) return keyspaceHoldersAmong(read, namespace, keyspace);
      const found = holders(namespace, keyspace);
      // Only the Function being judged (or nobody) declares it here: the cache may not know the owner yet.
      if (source.functions && found.every((c) => c.name === request.name)) missedNamespaces.add(namespace);
      return found;
    };
  }
  const first = decide(request, lookup);
  if (missedEnvironments.size === 0 && missedNamespaces.size === 0) return first;
  await Promise.all([
    ...[...missedEnvironments].map(async ([key, { namespace, name }]) => {
      try {
        environments.set(key, await source.environment!(namespace, name));
      } catch (err) {
        environments.set(key, undefined);
        onReadError(`Environment ${key}`, err);
      }
    }),
    ...[...missedNamespaces].map(async (namespace) => {
      try {
        functions.set(namespace, await source.functions!(namespace));
      } catch (err) {
        onReadError(`the Functions of namespace ${namespace}`, err);
      }
    }),
  ]);
  return decide(request, lookup);
}
