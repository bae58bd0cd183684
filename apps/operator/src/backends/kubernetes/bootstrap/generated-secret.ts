import { randomBytes } from 'node:crypto';
import { type KubeClient, type KubeObject, statusCode } from '../kube-client.ts';

/** A credential the operator makes once when no one supplied it (store token, admin token, master keys, database passwords). */
export interface GeneratedSecretSpec {
  name: string;
  key: string;
  /** Random bytes before hex encoding: 32 → 64 hex digits, which every consumer accepts (master keys want hex, tokens ≥ 16 characters). */
  bytes?: number;
  /** Labels on a Secret this operator creates (the chart's, so `kubectl get -l` finds it). */
  labels?: Record<string, string>;
}

type SecretObject = KubeObject & { data?: Record<string, string>; stringData?: Record<string, string> };

/**
 * `NAME` or `NAME/KEY` from a flag; the key defaults per purpose. Names only: the value never
 * appears on a command line.
 */
export function parseSecretRef(text: string, defaultKey: string): { name: string; key: string } {
  const [name, key = defaultKey, ...rest] = text.split('/');
  const dns1123 = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
  if (rest.length || !name || !dns1123.test(name) || !/^[-._a-zA-Z0-9]+$/.test(key)) {
    throw new Error(`${JSON.stringify(text)} is not a Secret reference: use NAME or NAME/KEY (a Kubernetes Secret name and a data key)`);
  }
  return { name, key };
}

/** The value of `key` in a Secret as the API answers it (base64 `data`), or undefined. */
export function secretValue(secret: SecretObject | undefined, key: string): string | undefined {
  const b64 = secret?.data?.[key];
  return b64 === undefined ? undefined : Buffer.from(b64, 'base64').toString('utf8');
}

/**
 * Read the Secret's value, creating the Secret with a random value first when it does not exist.
 * Create-only, never update: replicas racing at first start all end up with the winner's value
 * (409 AlreadyExists → read it), and a value someone else put there is never replaced. Kept
 * across upgrades because the chart does not render the Secret (unlike Helm's `lookup`, which
 * re-rolls under `helm template`). A Secret that exists without the key is an error to fix by
 * hand, not something to overwrite.
 */
export async function ensureGeneratedSecret(client: KubeClient, namespace: string, spec: GeneratedSecretSpec, log?: (msg: string) => void): Promise<string> {
  const read = () => client.get<SecretObject>('v1', 'Secret', namespace, spec.name);
  let secret = await read();
  if (!secret) {
    try {
      await client.create<SecretObject>({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: spec.name, namespace, labels: { ...spec.labels, 'app.kubernetes.io/managed-by': 'orrery-operator' } },
        type: 'Opaque',
        data: { [spec.key]: Buffer.from(randomBytes(spec.bytes ?? 32).toString('hex')).toString('base64') },
      });
      log?.(`created Secret ${namespace}/${spec.name} (key ${spec.key}) with a generated value`);
    } catch (err) {
      if (statusCode(err) !== 409) throw err;
    }
    secret = await read();
  }
  const value = secretValue(secret, spec.key)?.trim();
  if (!value) throw new Error(`Secret ${namespace}/${spec.name} exists but has no data key "${spec.key}": add it, or delete the Secret so the operator generates one`);
  return value;
}
