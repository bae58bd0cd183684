import type { EnvVar } from '@orrery/spec';

/**
 * A Function template's `env` turned into the variables one worker gets: plain values as they
 * are, `valueFrom.secretKeyRef` read through `lookup` (the local secrets folder, or a Kubernetes
 * Secret for pool pods — deploy pods get the real secretKeyRef and the kubelet resolves it). The
 * platform's own variables cannot be set this way. A required secret that is missing stops the
 * worker from starting, as Kubernetes' CreateContainerConfigError does; an optional one is skipped.
 */
export type SecretLookup = (namespace: string, name: string, key: string) => Promise<string | undefined>;

/** Names a template may not set: the runtime's ORRERY_* variables and the pod identity its flags refer to. */
export function isReservedEnvName(name: string): boolean {
  return name.startsWith('ORRERY_') || name === 'POD_IP' || name === 'POD_NAME' || name === 'POD_UID';
}

export interface MissingSecret {
  env: string;
  secret: string;
  key: string;
}

export class MissingSecretError extends Error {
  override name = 'MissingSecretError';
  constructor(
    readonly namespace: string,
    readonly missing: MissingSecret[],
    hint: (m: MissingSecret) => string,
  ) {
    super(missing.map((m) => `env ${m.env}: secret ${namespace}/${m.secret} has no key "${m.key}" (${hint(m)})`).join('; '));
  }
}

export async function resolveTemplateEnv(
  namespace: string,
  env: readonly EnvVar[],
  lookup: SecretLookup,
  hint: (m: MissingSecret) => string = () => 'create it, or mark the reference optional',
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const missing: MissingSecret[] = [];
  for (const e of env) {
    if (isReservedEnvName(e.name)) continue;
    const ref = e.valueFrom?.secretKeyRef;
    if (!ref) {
      out[e.name] = e.value ?? '';
      continue;
    }
    const value = await lookup(namespace, ref.name, ref.key);
    if (value !== undefined) out[e.name] = value;
    else if (!ref.optional) missing.push({ env: e.name, secret: ref.name, key: ref.key });
  }
  if (missing.length) throw new MissingSecretError(namespace, missing, hint);
  return out;
}
