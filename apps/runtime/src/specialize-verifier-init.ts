import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { deriveSpecializeNonce, specializeVerifier } from '@orrery/auth';

/**
 * `orrery-runtime write-specialize-verifier`: the Kubernetes pool pod's init container. It is the
 * only container that mounts the Environment's pool key; it derives this pod's specialize nonce
 * (HMAC of the key over the pod's namespace and uid, as the executor does) and writes only the
 * nonce's SHA-256 into the volume the runtime container reads (`--specialize-verifier-file`).
 * The runtime container never sees the key, so function code there cannot specialize another pod.
 */
export interface VerifierInitOptions {
  poolKeyFile: string;
  namespace: string;
  podUid: string;
  out: string;
}

export class VerifierInitError extends Error {
  override name = 'VerifierInitError';
}

export function parseVerifierInitArgs(argv: string[], env: Record<string, string | undefined>): VerifierInitOptions {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { 'pool-key-file': { type: 'string' }, namespace: { type: 'string' }, 'pod-uid': { type: 'string' }, out: { type: 'string' } },
      strict: true,
    }));
  } catch (err) {
    throw new VerifierInitError((err as Error).message);
  }
  const o = {
    poolKeyFile: values['pool-key-file'],
    namespace: values.namespace ?? env.POD_NAMESPACE,
    podUid: values['pod-uid'] ?? env.POD_UID,
    out: values.out,
  };
  const missing = [!o.poolKeyFile && '--pool-key-file', !o.namespace && '--namespace (or POD_NAMESPACE)', !o.podUid && '--pod-uid (or POD_UID)', !o.out && '--out'].filter(Boolean);
  if (missing.length) throw new VerifierInitError(`write-specialize-verifier needs ${missing.join(', ')}`);
  return o as VerifierInitOptions;
}

export async function writeSpecializeVerifierFile(o: VerifierInitOptions): Promise<void> {
  let key: string;
  try {
    key = (await readFile(o.poolKeyFile, 'utf8')).trim();
  } catch (err) {
    throw new VerifierInitError(`cannot read the pool key ${o.poolKeyFile}: ${(err as Error).message} (is the Environment's specialize Secret mounted?)`);
  }
  if (key === '') throw new VerifierInitError(`the pool key ${o.poolKeyFile} is empty`);
  const verifier = specializeVerifier(deriveSpecializeNonce(key, o.namespace, o.podUid));
  await mkdir(dirname(o.out), { recursive: true });
  const tmp = `${o.out}.tmp-${process.pid}`;
  // A hash of the nonce: reading it gives nothing; 0444 so the runtime container may run as another uid.
  await writeFile(tmp, `${verifier}\n`, { mode: 0o444 });
  await chmod(tmp, 0o444);
  await rename(tmp, o.out);
}
