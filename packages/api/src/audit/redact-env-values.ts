/**
 * `spec.template.env` values are plain text a user may have put a secret into (before
 * `valueFrom.secretKeyRef` existed, or by mistake). They are stored as sent, shown to operators and
 * admins (who may edit them), and replaced by REDACTED in audit rows and in viewers' answers.
 * A `valueFrom` reference names a Secret, not its value, and is kept.
 */
export const REDACTED = '[redacted]';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An env list with every non-empty `value` replaced; anything that is not an env list is returned as is. */
export function redactEnvList(env: unknown): unknown {
  if (!Array.isArray(env)) return env;
  return env.map((e) => (isRecord(e) && typeof e.value === 'string' && e.value !== '' ? { ...e, value: REDACTED } : e));
}

/**
 * A copy of `value` in which every object shaped like a Function or Revision (`spec.template.env`)
 * has its env values redacted — however deep (lists, `{items}`, an object and its revisions).
 * Parts without such objects are returned unchanged (not copied).
 */
export function redactTemplateEnv(value: unknown, depth = 0): unknown {
  if (depth > 12 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v) => {
      const r = redactTemplateEnv(v, depth + 1);
      if (r !== v) changed = true;
      return r;
    });
    return changed ? out : value;
  }
  let out: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(value)) {
    let r = redactTemplateEnv(v, depth + 1);
    if (k === 'template' && isRecord(r) && Array.isArray(r.env)) {
      const env = redactEnvList(r.env);
      if ((env as unknown[]).some((e, i) => e !== (r as { env: unknown[] }).env[i])) r = { ...r, env };
    }
    if (r !== v) (out ??= { ...(value as Record<string, unknown>) })[k] = r;
  }
  return out ?? value;
}
