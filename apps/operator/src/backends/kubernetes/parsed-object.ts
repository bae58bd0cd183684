/**
 * An informer's or the API server's copy read as a typed resource: defaults applied and unknown
 * fields (managedFields …) dropped; undefined when absent or invalid (the admission webhook should
 * have refused it).
 */
export function parsed<T>(schema: { safeParse(v: unknown): { success: boolean; data?: unknown } }, obj: unknown): T | undefined {
  if (!obj) return undefined;
  const r = schema.safeParse(obj);
  return r.success ? (r.data as T) : undefined;
}
