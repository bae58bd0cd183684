/**
 * The resource store's side of the status fields that have their own writer (status.triggers,
 * status.build): read the Function as stored, and write a whole status back only if it still has
 * the resourceVersion it was read at (the store's status writes replace the whole status).
 */
import { FunctionSchema, type OrreryFunction } from '@orrery/spec';
import { type ResourceStore, StoreError } from '@orrery/store';

/** The Function as stored now; undefined when it is gone or does not parse. */
export async function readStoredFunction(store: ResourceStore, namespace: string, name: string): Promise<OrreryFunction | undefined> {
  const raw = await store.get('Function', namespace, name);
  const r = raw && FunctionSchema.safeParse(raw);
  return r && r.success ? r.data : undefined;
}

/** Writes `status` if `fn` is still the stored version: a conflict or a deleted Function is an answer, not an error. */
export async function writeFunctionStatusIfUnchanged(store: ResourceStore, fn: OrreryFunction, status: unknown): Promise<'written' | 'conflict' | 'gone'> {
  const { namespace, name, resourceVersion } = fn.metadata;
  try {
    await store.updateStatus('Function', namespace, name, status, { resourceVersion });
    return 'written';
  } catch (err) {
    if (err instanceof StoreError && err.code === 'conflict') return 'conflict';
    if (err instanceof StoreError && err.code === 'not_found') return 'gone';
    throw err;
  }
}
